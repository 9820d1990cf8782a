import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError } from '../lib';
import { defaultBenchmarkDir, loadQueryWriterPrompt } from '../lib/bench';
import { defaultEmbeddingCacheDir } from '../lib/encode';
import { defaultJudgePromptPath, loadJudgePrompt, llmJudgePlan } from '../lib/judge';
import {
  benchDataDir, checkpointsDir, defaultDataDir, loadPromptTemplate, packageFile, recordingsDir, repoRelativePath, repoReportsDir,
  repoRoot
} from '../lib/util';
import { parsePromptTemplate } from '../lib/util';
import { defaultModelsFilePath } from '../lib/llm';
import { listwisePromptFile, loadListwisePrompt } from '../lib/rerank';
import { loadRouterPrompt, routerDataDir } from '../lib/router';
import { loadAgenticPrompt } from '../lib/agent';

const ROOT = path.resolve(__dirname, '..');

test('repoRoot and the default folders sit in this repository', () => {
  assert.is(repoRoot(), ROOT);
  assert.is(checkpointsDir('nnssc', 'x'), path.join(ROOT, 'checkpoints', 'nnssc', 'x'));
  assert.is(benchDataDir('eo-title'), path.join(ROOT, 'data', 'bench', 'eo-title'));
  assert.is(defaultBenchmarkDir('eo-title'), benchDataDir('eo-title'));
  assert.is(defaultEmbeddingCacheDir(), checkpointsDir('embeddings'));
  assert.is(repoReportsDir('cli'), path.join(ROOT, 'reports', 'cli'));
  assert.is(recordingsDir('llm'), path.join(ROOT, 'recordings', 'llm'));
});

test('packageFile finds data files beside the sources, from lib/ and from the compiled dist/lib/ alike', () => {
  const want = path.join(ROOT, 'lib', 'bench', 'prompts', 'query-writer.md');
  assert.is(packageFile('bench', 'prompts', 'query-writer.md'), want);
  // the compiled module (dist/lib/util/paths.js) has no prompts beside it and must still find lib/'s
  const dist = require(path.join(ROOT, 'dist', 'lib', 'util', 'paths.js')) as { packageFile: (...s: string[]) => string };
  assert.is(dist.packageFile('bench', 'prompts', 'query-writer.md'), want);
  for (const f of [defaultModelsFilePath(), defaultJudgePromptPath(), listwisePromptFile(), routerDataDir()]) assert.ok(fs.existsSync(f), f);
});

test('every prompt of the workbench is read by the one loader', () => {
  for (const [name, tpl] of Object.entries({
    queryWriter: loadQueryWriterPrompt(), judge: loadJudgePrompt(), listwise: loadListwisePrompt(), router: loadRouterPrompt(), agentic: loadAgenticPrompt(),
  })) {
    assert.ok(tpl.system.length > 20 && tpl.user.length > 5, name);
    assert.not.match(tpl.system + tpl.user, /<!--|===SYSTEM===|===USER===/, name);
  }
});

test('prompt files: comments dropped, sections trimmed; a missing file or section is an error naming the file', () => {
  assert.equal(parsePromptTemplate('<!-- header -->\n===SYSTEM===\n  be brief \n===USER===\nQ: {query}\n', 'x.md'), { system: 'be brief', user: 'Q: {query}' });
  try {
    parsePromptTemplate('no sections', 'x.md');
    assert.unreachable();
  } catch (e) {
    assert.ok(isEoError(e, 'CONFIG') && e.message.includes('x.md'));
  }
  const missing = path.join(os.tmpdir(), 'eo-no-such-prompt.md');
  try {
    loadPromptTemplate(missing);
    assert.unreachable();
  } catch (e) {
    // before: a missing custom query-writer prompt silently fell back to the default one
    assert.ok(isEoError(e, 'DATA_NOT_FOUND') && e.message.includes(missing), String(e));
  }
  assert.throws(() => loadQueryWriterPrompt(missing), (e: unknown) => isEoError(e, 'DATA_NOT_FOUND'));
});

test('repoRelativePath: files in the project relative, the data and temporary folders by their role, anything else absolute; never ../', () => {
  assert.is(repoRelativePath(checkpointsDir('nnssc', 'x')), path.join('checkpoints', 'nnssc', 'x'));
  assert.is(repoRelativePath(ROOT), '.');
  assert.is(repoRelativePath(path.join(defaultDataDir(), 'sample')), path.join('$EO_DATA_DIR', 'sample'));
  assert.is(repoRelativePath(defaultDataDir()), '$EO_DATA_DIR');
  assert.is(repoRelativePath('reports/x.run'), 'reports/x.run', 'relative paths stay');
  assert.is(repoRelativePath(path.join(os.tmpdir(), 'eo-x', 'x.run')), path.join('$TMPDIR', 'eo-x', 'x.run'));
  // a sibling of the clone that is neither: absolute (before: "../elsewhere/x.run", which reads differently from every clone)
  const sibling = path.join(path.dirname(ROOT), 'elsewhere-not-data', 'x.run');
  if (!sibling.startsWith(path.resolve(os.tmpdir()) + path.sep)) assert.is(repoRelativePath(sibling), sibling);
  assert.is(repoRelativePath('/opt/eo/x.run'), '/opt/eo/x.run');
  // a folder whose name starts with two dots is inside, not above
  assert.is(repoRelativePath(path.join(ROOT, '..cache', 'x')), path.join('..cache', 'x'));
  // a judge status that is shown in every judge column of the published tables
  const jp = llmJudgePlan({ env: { EO_LLM_STORE: path.join(ROOT, 'recordings', 'llm', 'no-such-store.jsonl') } });
  assert.match(jp.status, 'recordings/llm/no-such-store.jsonl');
  assert.not.match(jp.status, ROOT);
});

test('the notebook runner writes run.json with the notebook and output named inside the project', () => {
  const src = fs.readFileSync(path.join(ROOT, 'scripts', 'run-notebooks.cjs'), 'utf8');
  assert.match(src, /notebook: inRepo\(status\.notebook\), output: inRepo\(status\.output\)/);
  for (const nb of ['03-encoder-finetune', '04-nnssc']) assert.match(fs.readFileSync(path.join(ROOT, 'notebooks', `${nb}.ipynb`), 'utf8'), 'runFiles.map(repoRelativePath)', nb);
});

test.run();
