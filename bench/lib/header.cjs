// The first block every bench script prints: what it measures, the machine it ran on, the commit, the settings — so
// that a pasted result says where it came from. Node built-ins only (git is asked once, and may be absent).
'use strict';
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { scriptName } = require('./args.cjs');

const REPO = path.resolve(__dirname, '..', '..');

/** The checkout's commit (`git describe --always --dirty`: `-dirty` when the work tree has changes), or null. */
function benchCommit() {
  try {
    return execFileSync('git', ['-C', REPO, 'describe', '--always', '--dirty', '--abbrev=12'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim() || null;
  } catch {
    return null;
  }
}

/** A value as a flag's setting reads: lists joined by commas, JSON as JSON, booleans on/off. */
function settingText(v) {
  if (v === true) return 'on';
  if (v === false) return 'off';
  if (v === null || v === undefined) return 'default';
  if (Array.isArray(v)) return v.join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * The header of one run as data: `args` is what benchArgs returned (its spec says what the script measures and which
 * flags it has); `extra` adds settings the script resolved itself (e.g. a default that depends on another flag).
 */
function benchHeader(args, extra = {}) {
  const spec = args.spec;
  const cpus = os.cpus();
  const settings = {};
  for (const name of Object.keys(spec.flags ?? {})) settings[`--${name}`] = args[name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase())];
  Object.assign(settings, extra);
  return {
    script: scriptName(spec),
    measures: spec.measures,
    machine: { cores: cpus.length, cpu: cpus[0]?.model ?? null, loadAverage: os.loadavg(), node: process.version, platform: `${process.platform} ${process.arch}` },
    commit: benchCommit(),
    settings,
  };
}

/**
 * Prints the header block (lines starting with `# `) on `stream` (default stdout; scripts whose stdout is JSON pass
 * stderr) and returns it as data, to be stored with the results.
 */
function printHeader(args, { extra = {}, stream = process.stdout } = {}) {
  const h = benchHeader(args, extra);
  const m = h.machine;
  const lines = [
    `# ${h.script}: ${h.measures}`,
    `# machine: ${m.cores} cores${m.cpu ? ` (${m.cpu.trim()})` : ''}, load average ${m.loadAverage.map((x) => x.toFixed(2)).join(' ')}, node ${m.node}, ${m.platform}`,
    `# commit: ${h.commit ?? 'unknown (not a git checkout)'}`,
    `# settings: ${Object.entries(h.settings).map(([k, v]) => `${k} ${settingText(v)}`).join(', ') || 'none'}`,
  ];
  stream.write(lines.join('\n') + '\n');
  return h;
}

module.exports = { benchHeader, printHeader, benchCommit };
