// Shared by the data-format tests: the EoError assertion and the small CMR fixture corpus.
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isEoError } from '../../lib';
import { cmrItemToDataset, makeCorpus } from '../../lib/data';

export const FIXTURES = path.join(__dirname, '..', 'fixtures');

/** `fn` throws an EoError with this code and a message matching `re`. */
export function throwsWith(fn: () => unknown, code: string, re: RegExp): void {
  try {
    fn();
  } catch (e) {
    assert.ok(isEoError(e), `not an EoError: ${e}`);
    assert.is((e as any).code, code, (e as Error).message);
    assert.match((e as Error).message, re);
    return;
  }
  assert.unreachable(`should throw ${re}`);
}

/** `fn`'s promise rejects with an EoError with this code and a message matching `re`. */
export async function rejectsWith(fn: () => Promise<unknown>, code: string, re: RegExp): Promise<void> {
  let thrown: unknown;
  try {
    await fn();
  } catch (e) {
    thrown = e;
  }
  if (thrown === undefined) assert.unreachable(`should reject with ${re}`);
  throwsWith(() => {
    throw thrown;
  }, code, re);
}

/** A small corpus: the CMR fixture collections. */
export function cmrFixtureCorpus() {
  const items: unknown[] = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'cmr', 'umm-items.json'), 'utf8'));
  return makeCorpus(
    items.map((it, i) => cmrItemToDataset(it, { index: i })),
    [],
    [],
    'cmr-fixture',
  );
}
