/**
 * The scale model's output (`bench/paper-scale.cjs` → `bench/out/paper-scale.json`, format `eo-paper-scale/1`) as a
 * table and as the conclusion the README draws from it: which stages fit 2 cores at the paper's scale, which need a
 * GPU, which need a provider's batch API. Read from the JSON, never typed; the benchmark itself is not run here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../../errors';
import { repoRoot } from '../../util/paths';
import { readBenchJson } from '../../report/bench-json';
import { repoRelativePath } from '../../report/frame';
import type { TableRow } from '../../report/types';

/** One timed stage of the scale model (or a skipped one, with `skipped` set). */
export interface PaperScaleStage {
  stage: string;
  n?: number;
  unit?: string;
  /** Measured wall seconds (null for the LLM rows, which are not timed). */
  seconds?: number | null;
  cpuSeconds?: number;
  /** The stage at the paper's size and schedule, scaled from the wall time. */
  paperSeconds?: number | null;
  /** The same, scaled from the CPU time: what an idle machine needs. */
  paperSecondsIdle?: number | null;
  paperHow?: string;
  verdict?: string;
  peakRssMB?: number;
  costUsdMin?: number;
  costUsdMax?: number;
  skipped?: string;
  [key: string]: unknown;
}

/** The JSON file the scale model writes. */
export interface PaperScale {
  format: 'eo-paper-scale/1';
  created: string;
  quick: boolean;
  seed: number;
  machine: { node: string; cores: number; cpu: string; loadavg: number[]; memoryGB: number; tfBackend?: string };
  sizes: { measured: Record<string, number>; paper: Record<string, number> };
  stages: PaperScaleStage[];
  llm: { queries: number; model: string; provider: string; calls: number; inputTokens: number; outputTokens: number; costUsd: number }[];
  wallSeconds: number;
}

/** Where `node bench/paper-scale.cjs` writes its output by default. */
export function defaultPaperScaleFile(): string {
  return path.join(repoRoot(), 'bench', 'out', 'paper-scale.json');
}

/** The command that makes the file (the full run; `--test 200` times 200 test queries and scales them up). */
export const PAPER_SCALE_COMMAND = 'npm run build && node bench/paper-scale.cjs --test 200';

/**
 * The scale model's output, or null when the file does not exist (the benchmark has not been run on this machine).
 * A file of another format is an error naming the file and the field.
 */
export function readPaperScale(file = defaultPaperScaleFile()): PaperScale | null {
  if (!fs.existsSync(file)) return null;
  const o = readBenchJson(file, 'eo-paper-scale/1') as Partial<PaperScale>;
  if (!Array.isArray(o.stages)) throw new EoError('REPORT', `${file}: field "stages" must be an array`, { file, field: 'stages' });
  if (!Array.isArray(o.llm)) throw new EoError('REPORT', `${file}: field "llm" must be an array`, { file, field: 'llm' });
  return o as PaperScale;
}

/** Seconds as `12.3 s`, `4.5 min` or `35 h`; '—' for null. */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  if (s < 120) return `${s.toFixed(1)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  return `${Math.round(s / 3600).toLocaleString('en-US')} h`;
}

const usd = (x: number) => `$${x.toFixed(2)}`;

/** One row per stage: what was measured, wall and CPU time, the paper-scale times (as measured, idle estimate), peak RSS, verdict. */
export function paperScaleRows(scale: PaperScale): TableRow[] {
  return scale.stages.map((s) => s.skipped
    ? { stage: s.stage, measured: `skipped (${s.skipped})`, wall: '—', CPU: '—', 'paper scale (as measured)': '—', 'paper scale (idle estimate)': '—', 'peak RSS (MB)': null, verdict: '—' }
    : {
        stage: s.stage,
        measured: `${(s.n ?? 0).toLocaleString('en-US')} ${s.unit ?? ''}`.trim(),
        wall: formatSeconds(s.seconds),
        CPU: s.seconds === null ? '—' : formatSeconds(s.cpuSeconds),
        'paper scale (as measured)': s.paperSeconds === null && s.costUsdMin !== undefined ? `${usd(s.costUsdMin)}–${usd(s.costUsdMax ?? s.costUsdMin)} per model` : formatSeconds(s.paperSeconds),
        'paper scale (idle estimate)': formatSeconds(s.paperSecondsIdle),
        'peak RSS (MB)': s.peakRssMB ?? null,
        verdict: s.verdict ?? '',
      });
}

/** Which stages fit 2 cores, need a GPU, or need the batch API, with their paper-scale numbers; as markdown. */
export function paperScaleVerdict(scale: PaperScale): string {
  const timed = scale.stages.filter((s) => !s.skipped && typeof s.paperSeconds === 'number');
  const fits = timed.filter((s) => (s.verdict ?? '').startsWith('fits 2 cores'));
  const gpu = timed.filter((s) => (s.verdict ?? '').startsWith('needs a GPU'));
  const llm = scale.stages.filter((s) => !s.skipped && s.paperSeconds === null && s.costUsdMin !== undefined);
  const batch = llm.filter((s) => /batch API/i.test(s.verdict ?? ''));
  const interactive = llm.filter((s) => !/batch API/i.test(s.verdict ?? ''));
  const idle = (s: PaperScaleStage) => formatSeconds(s.paperSecondsIdle ?? s.paperSeconds);
  const out: string[] = [];
  const maxRss = Math.max(0, ...fits.map((s) => s.peakRssMB ?? 0));
  if (fits.length) out.push(`- **Fits 2 cores at the paper's scale** (${fits.length} stages, peak RSS ≤ ${maxRss} MB): ${fits.map((s) => `${s.stage} ≈ ${idle(s)}`).join('; ')}.`);
  if (gpu.length) out.push(`- **Needs a GPU:** ${gpu.map((s) => `${s.stage} ≈ ${idle(s)} idle${s.paperHow ? ` (${s.paperHow})` : ''}`).join('; ')}.`);
  if (batch.length) out.push(`- **Needs a provider's batch API:** ${batch.map((s) => `${s.stage}: ${(s.n ?? 0).toLocaleString('en-US')} calls per model, ${usd(s.costUsdMin ?? 0)}–${usd(s.costUsdMax ?? 0)} per model`).join('; ')}; its time is set by rate limits, not by these cores.`);
  if (interactive.length) out.push(`- **Interactive API is enough:** ${interactive.map((s) => `${s.stage}: ${usd(s.costUsdMin ?? 0)}–${usd(s.costUsdMax ?? 0)} per model`).join('; ')}.`);
  const skipped = scale.stages.filter((s) => s.skipped);
  if (skipped.length) out.push(`- Not measured in this run: ${skipped.map((s) => `${s.stage} (${s.skipped})`).join('; ')}.`);
  const load = scale.machine.loadavg.map((x) => x.toFixed(1)).join(', ');
  out.push(`\n*Measured ${scale.created.slice(0, 16).replace('T', ' ')} UTC on ${scale.machine.cores} cores (${scale.machine.cpu}), load average ${load}` +
    `${scale.quick ? '; a `--quick` smoke run, whose scaled numbers are rough' : ''}. "Idle estimate" scales the CPU time, "as measured" the wall time; ` +
    'on a loaded machine only the idle column says what an idle one needs.*');
  return out.join('\n');
}

/** The note shown when the scale model has not been run: where the file would be and the command that makes it. */
export function paperScaleMissing(file = defaultPaperScaleFile()): string {
  return `*No scale-model output at \`${repoRelativePath(file)}\`: the benchmark takes ~15 minutes on 2 cores and is not run inside a notebook. ` +
    `Run \`${PAPER_SCALE_COMMAND}\` (or \`node bench/paper-scale.cjs --quick\` for a one-minute smoke run written to \`bench/out/paper-scale-quick.json\`), then re-run this cell.*`;
}
