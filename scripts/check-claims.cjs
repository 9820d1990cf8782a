#!/usr/bin/env node
// The claim check of an executed run, as a reviewer runs it: for every notebook under a reports folder (default
// reports/), its generated sentences against its results.json tables (lib/lessons/claims.ts, with each falsified copy
// that the check must catch) and its prose — hand-written cells and shown sentences — against the outputs and the
// paper notes (lib/lessons/text-claims.ts). Exit 1 when any notebook has a problem or a falsified copy goes uncaught.
//   node scripts/check-claims.cjs [reports-dir]        (run `npm run build` first)
const fs = require('node:fs');
const path = require('node:path');
const lessons = require(path.join(__dirname, '..', 'dist', 'lib', 'lessons'));

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'reports'));
const notes = lessons.readPaperNotes();
if (notes === null) process.stdout.write('../shared/notes absent: values given as the paper\'s are not checked\n');
let bad = 0;
let seen = 0;
for (const nb of fs.readdirSync(root).filter((d) => /^\d\d-/.test(d)).sort()) {
  const resultsFile = path.join(root, nb, 'results.json');
  const notebookFile = path.join(root, nb, `${nb}.ipynb`);
  if (!fs.existsSync(resultsFile) || !fs.existsSync(notebookFile)) continue;
  seen++;
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  const cells = lessons.markdownCells(JSON.parse(fs.readFileSync(notebookFile, 'utf8')));
  let problems;
  let falsified = [];
  let missed = [];
  try {
    problems = [
      ...lessons.checkNotebookClaims(nb, results),
      ...lessons.notebookTextProblems(results, cells, notes),
    ];
    falsified = lessons.falsifiedClaims(nb, results);
    missed = falsified.filter((f) => lessons.checkNotebookClaims(nb, f.results).length === 0);
  } catch (e) {
    // a results.json of another shape (an older run): say so and go on with the next notebook
    problems = [`the check cannot read this results.json (${e instanceof Error ? e.message : String(e)}); run the notebook again`];
  }
  process.stdout.write(`${nb} (${results.sample ? 'sample' : 'full snapshot'}): ${problems.length} problem(s); ${falsified.length - missed.length} of ${falsified.length} falsified copies caught\n`);
  for (const p of problems) process.stdout.write(`  - ${p}\n`);
  for (const m of missed) process.stdout.write(`  - missed a falsified claim (${m.covers})\n`);
  if (problems.length > 0 || missed.length > 0) bad++;
}
if (seen === 0) {
  process.stderr.write(`check-claims: no executed notebook (results.json and <name>.ipynb) under ${root}\n`);
  process.exit(2);
}
process.stdout.write(bad === 0 ? `every claim of the ${seen} notebooks holds\n` : `${bad} of ${seen} notebooks have problems\n`);
process.exit(bad === 0 ? 0 : 1);
