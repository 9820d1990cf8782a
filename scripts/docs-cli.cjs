#!/usr/bin/env node
// Write the flag section of docs/cli.md from the flag tables (lib/cli/flags.ts, built into dist/): each command's
// --help as it prints it. test/cli-help.test.ts fails when the file and the tables differ. Run after `npm run build`.
const fs = require('node:fs');
const path = require('node:path');
const { cliFlagsMarkdown, CLI_DOC_MARKERS } = require(path.join(__dirname, '..', 'dist', 'lib', 'cli', 'flags.js'));
const file = path.join(__dirname, '..', 'docs', 'cli.md');
const text = fs.readFileSync(file, 'utf8');
const [begin, end] = CLI_DOC_MARKERS;
const i = text.indexOf(begin);
const j = text.indexOf(end);
const next = i >= 0 && j > i ? text.slice(0, i) + cliFlagsMarkdown() + text.slice(j + end.length) : `${text.trimEnd()}\n\n## Flags of each command\n\n${cliFlagsMarkdown()}\n`;
const tmp = `${file}.${process.pid}.tmp`;
fs.writeFileSync(tmp, next);
fs.renameSync(tmp, file);
process.stdout.write(`wrote the flag section of ${path.relative(process.cwd(), file)}\n`);
