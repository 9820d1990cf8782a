import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSnapshot, isEoError } from '../lib';
import { datasetEncoderText } from '../lib/data';

test('sample snapshot loads and every link resolves', () => {
  const c = loadSnapshot({ sample: true });
  assert.is(c.datasets.length, 200);
  assert.is(c.publications.length, 60);
  assert.is(c.links.length, 136);
  for (const l of c.links) assert.ok(c.indexById.has(l.datasetId));
  assert.ok(c.datasets.some((d) => d.shortName === null));
  assert.match(c.hash, /^[0-9a-f]{16}$/);
});

function tmpSnapshot(datasetsJsonl: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-snap-'));
  fs.writeFileSync(path.join(dir, 'datasets.jsonl'), datasetsJsonl);
  fs.writeFileSync(path.join(dir, 'publications.jsonl'), '');
  fs.writeFileSync(path.join(dir, 'links.jsonl'), '');
  return dir;
}

test('missing optional fields are fine', () => {
  const dir = tmpSnapshot('{"id":"C1-ABC","longName":"A title"}\n');
  const c = loadSnapshot({ dir });
  assert.is(c.datasets[0].shortName, null);
  assert.equal(c.datasets[0].keywords, []);
  assert.is(c.datasets[0].daac, 'ABC');
  assert.is(datasetEncoderText(c.datasets[0]), 'A title');
});

test('bad line names file, line and field', () => {
  const dir = tmpSnapshot('{"id":"C1-ABC","longName":"ok"}\n\n{"id":"C2-ABC","longName":"x","keywords":"nope"}\n');
  try {
    loadSnapshot({ dir });
    assert.unreachable('should throw');
  } catch (e) {
    assert.ok(isEoError(e, 'DATA_INVALID'));
    assert.match((e as Error).message, /datasets\.jsonl:3: field "keywords"/);
  }
  const dir2 = tmpSnapshot('{"id":"C1-ABC","longName":"ok"}\n{not json\n');
  try {
    loadSnapshot({ dir: dir2 });
    assert.unreachable('should throw');
  } catch (e) {
    assert.ok(isEoError(e, 'DATA_PARSE'));
    assert.match((e as Error).message, /datasets\.jsonl:2: invalid JSON/);
  }
  const dir3 = tmpSnapshot('{"id":"not-a-concept-id","longName":"ok"}\n');
  assert.throws(() => loadSnapshot({ dir: dir3 }), /datasets\.jsonl:1: field "id"/);
});

test('missing folder gives DATA_NOT_FOUND', () => {
  assert.throws(() => loadSnapshot({ dir: '/nonexistent/eo' }), /snapshot folder not found/);
});

test.run();
