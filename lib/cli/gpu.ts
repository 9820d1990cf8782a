/**
 * `eo gpu check`: whether TensorFlow.js can train and score on WebGPU here (lib/tensor/webgpu.ts). Prints the adapter,
 * or the missing link as a coded error (GPU_UNAVAILABLE, exit 4: the machine, not the call) that says what to do.
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
  const values = parsed.values as { json?: boolean; help?: boolean };
  const [what, ...extra] = parsed.positionals;
  if (values.help) return void process.stdout.write(commandHelp('gpu') + '\n');
  if (what !== 'check' || extra.length > 0) throw new EoError('INVALID_ARGUMENT', `eo gpu takes one command, check${what ? ` (got "${[what, ...extra].join(' ')}")` : ''}\n${commandHelp('gpu')}`);
  const result = await checkWebgpu();
  if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else if (result.ok) process.stdout.write(`${result.message}\n`);
  if (!result.ok) throw new EoError('GPU_UNAVAILABLE', result.message, { missing: result.missing });
}
