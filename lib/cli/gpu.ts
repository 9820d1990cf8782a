/**
 * `eo gpu check`: whether TensorFlow.js can train and score on WebGPU here (lib/tensor/webgpu.ts). Prints the adapter,
 * or the missing link as a coded error (GPU_UNAVAILABLE, exit 4: the machine, not the call) that says what to do.
 * `--parity` then trains briefly on the adapter and compares with the CPU path (lib/train/backend-parity.ts):
 * GPU_PARITY, exit 4, when a kernel computes wrongly there.
 */
import { parseArgs } from 'node:util';
import { EoError } from '../errors';
import { checkWebgpu } from '../tensor/webgpu';
import { commandHelp, GPU_FLAGS, parseArgsOptions } from './flags';

export async function runGpuCommand(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: parseArgsOptions(GPU_FLAGS) });
  } catch (e) {
    throw new EoError('INVALID_ARGUMENT', `${(e as Error).message}\n${commandHelp('gpu')}`);
  }
  const values = parsed.values as { json?: boolean; help?: boolean; parity?: boolean };
  const [what, ...extra] = parsed.positionals;
  if (values.help) return void process.stdout.write(commandHelp('gpu') + '\n');
  if (what !== 'check' || extra.length > 0) throw new EoError('INVALID_ARGUMENT', `eo gpu takes one command, check${what ? ` (got "${[what, ...extra].join(' ')}")` : ''}\n${commandHelp('gpu')}`);
  const result = await checkWebgpu();
  if (!result.ok || !values.parity) {
    if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else if (result.ok) process.stdout.write(`${result.message}\n`);
    if (!result.ok) throw new EoError('GPU_UNAVAILABLE', result.message, { missing: result.missing });
    return;
  }
  if (!values.json) process.stdout.write(`${result.message}\n`);
  // loaded only here: the check alone stays light
  const { backendParity, parityProblems, PARITY_TOLERANCE } = require('../train/backend-parity') as typeof import('../train/backend-parity');
  const t0 = performance.now();
  const report = await backendParity('webgpu');
  const problems = parityProblems(report);
  const seconds = (performance.now() - t0) / 1000;
  if (values.json) process.stdout.write(JSON.stringify({ ...result, parity: { ...report, problems, tolerance: PARITY_TOLERANCE, seconds } }, null, 2) + '\n');
  else {
    const e = (x: number) => x.toExponential(1);
    process.stdout.write(
      `parity with the CPU path (tolerance: one step ${PARITY_TOLERANCE.step}, two epochs ${PARITY_TOLERANCE.trained}, relative; ${seconds.toFixed(1)} s):\n` +
        `  static encoder step: loss Δ ${e(Math.abs(report.static.loss - report.static.lossRef))}, gradient Δ ${e(report.static.maxGradDiff)} (largest ${report.static.maxGrad.toFixed(3)})\n` +
        `  static encoder, 2 epochs: losses ${report.training.curve.map((l) => l.toFixed(5)).join(', ')} vs ${report.training.curveRef.map((l) => l.toFixed(5)).join(', ')}, table Δ ${e(report.training.maxTableDiff)}\n` +
        `  NN-SSC step: loss Δ ${e(Math.abs(report.nnssc.loss - report.nnssc.lossCpu))}, gradient Δ ${e(report.nnssc.maxGradDiff)}; from corpus rows on the device: loss Δ ${e(Math.abs(report.nnssc.lossRows - report.nnssc.lossCpu))}, gradient Δ ${e(report.nnssc.maxGradDiffRows)}\n` +
        (problems.length ? '' : '  within the tolerance\n'),
    );
  }
  if (problems.length) throw new EoError('GPU_PARITY', `the WebGPU backend's numbers differ from the CPU path's on ${report.adapter ?? 'this adapter'}: ${problems.join('; ')}`, { problems });
}
