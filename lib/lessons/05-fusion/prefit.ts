// Notebook 05, section 10's fusion records fitted in a second process while the cells before it run. On a cold run
// the section's engines each set their α on the training split (about 70 s on one core of the 2-core machine), while
// the other core sits idle through 05's first cells: 06–08 wait for its α records, 00–04 are done. 04 then 05 is the
// run's longest chain, so the fitting is done beside it instead. The child loads the same engines
// (`loadDefaultRankingEngines`) and exits; each record is written atomically, so the section, which waits for the
// child, reads them. Whatever the child did not store (it failed, or a record is invalid) the section sets itself, as
// it did before, with the same seeded code: the numbers do not depend on which process set a record.
import { fork } from 'node:child_process';
import { loadSnapshot } from '../../data/snapshot';
import { loadDefaultRankingEngines, type PrefitOutcome } from './styles';

/** How much of the child's stderr is kept (its end: an error's message and first frames). */
const SAID_CHARS = 2000;

/**
 * Start fitting the default-ranking section's fusion records in a child process (this file run as a script, the
 * snapshot `sample` says) and resolve once it has exited, however it ended; pass the promise to
 * `defaultRankingSection`. The child's stdout is dropped (the section prints what the engines say); the end of its
 * stderr comes back as `said`, so that a failed fitting says why.
 */
export function prefitDefaultRanking(opts: { sample: boolean }): Promise<PrefitOutcome> {
  return new Promise((resolve) => {
    const child = fork(__filename, opts.sample ? ['--sample'] : [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let said = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (said = (said + chunk).slice(-SAID_CHARS)));
    // 'close': the process has exited and its stderr is read to the end (whichever event comes first settles it)
    child.once('close', (code, signal) => resolve({ code, signal, said }));
    child.once('error', (e) => resolve({ code: null, signal: null, said: e.message }));
  });
}

/** The child: load every engine of the section on the snapshot, free them, exit 0 (1 on an error). */
async function prefitChild(sample: boolean): Promise<void> {
  const engines = await loadDefaultRankingEngines(loadSnapshot({ sample }), sample);
  for (const e of engines.all) e.dispose();
}

if (require.main === module) {
  prefitChild(process.argv.includes('--sample')).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
