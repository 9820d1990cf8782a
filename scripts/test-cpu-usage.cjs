// Preloaded by scripts/run-tests.cjs into each test process (node -r): at exit, write the process's own CPU seconds
// (user + system; not its children's, such as a browser or a Jupyter kernel) to $EO_TEST_CPU_FILE, so that the
// closing timing table can tell a file that computes from one that mostly waits.
'use strict';
const file = process.env.EO_TEST_CPU_FILE;
// the test process's own number only: processes and worker threads it starts (which may preload this too) do not
// inherit the variable
delete process.env.EO_TEST_CPU_FILE;
if (file && require('node:worker_threads').isMainThread) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    try {
      require('node:fs').writeFileSync(file, String((user + system) / 1e6));
    } catch {
      /* a timing is a nicety: never fail a test over it */
    }
  });
}
