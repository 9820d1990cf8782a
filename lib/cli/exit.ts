/**
 * Exit statuses and error lines of every `eo` command (`eo`, `eo serve`, `eo llm`, `eo bench`): one place, so that a
 * script can branch on the class of a failure. docs/exit-statuses.md lists the same table.
 *
 *   0  success
 *   1  internal error (a bug: not an EoError; the message is Node's)
 *   2  usage: a bad or missing flag, value or argument (INVALID_ARGUMENT, QUERY_TOO_LONG, BINARY_QUERY, MARKUP_QUERY)
 *   3  data: a snapshot, cache, benchmark or run file is missing, corrupt or invalid (DATA_*, CACHE_*, BENCH, TREC_PARSE, REPORT)
 *   4  configuration or environment: a setting, the encoder, the network, a full disk or a folder that cannot be written
 *   5  LLM: a provider call failed, a replay missed, the budget stopped a call, a batch needs checking (LLM, LLM_*)
 *
 * Every error line is `<prog>: [CODE] message`; messages name the file (and line / field) or the flag at fault.
 */
import { EoError, isEoError } from '../errors';

export const EXIT_STATUS = { ok: 0, internal: 1, usage: 2, data: 3, environment: 4, llm: 5 } as const;
export type ExitClass = keyof typeof EXIT_STATUS;

/** Exact codes per class; prefixes (`DATA_`, `CACHE_`, `LLM_`) cover the families. Codes of later issues fall in by prefix. */
const CLASS_OF_CODE: Readonly<Record<string, ExitClass>> = {
  INVALID_ARGUMENT: 'usage', QUERY_TOO_LONG: 'usage', BINARY_QUERY: 'usage', MARKUP_QUERY: 'usage',
  BENCH: 'data', TREC_PARSE: 'data', REPORT: 'data',
  CONFIG: 'environment', ENCODER: 'environment', HTTP: 'environment', NOT_IMPLEMENTED_OFFLINE: 'environment',
  DISK_FULL: 'environment', NOT_WRITABLE: 'environment', SERVE_PROCESS: 'environment', GPU_UNAVAILABLE: 'environment', GPU_PARITY: 'environment',
  LLM: 'llm',
};
const CLASS_OF_PREFIX: readonly (readonly [string, ExitClass])[] = [['DATA_', 'data'], ['CACHE_', 'data'], ['LLM_', 'llm']];
/** Node's system errors that come from the machine, not from the project (a path that cannot be written, a full disk). */
const ENVIRONMENT_ERRNO = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE', 'EADDRINUSE', 'EADDRNOTAVAIL']);

/** The class of an error code (an EoError's `code`): see the module comment. An unknown code is internal. */
export function exitClassOfCode(code: string): ExitClass {
  return CLASS_OF_CODE[code] ?? CLASS_OF_PREFIX.find(([p]) => code.startsWith(p))?.[1] ?? 'internal';
}

/** `code` and exit status of anything thrown by a command: EoErrors by code, node:util's parseArgs errors as usage. */
export function describeCliError(e: unknown): { code: string; status: number; message: string } {
  const message = e instanceof Error ? e.message : String(e);
  if (isEoError(e)) return { code: e.code, status: EXIT_STATUS[exitClassOfCode(e.code)], message };
  const nodeCode = (e as { code?: unknown } | null)?.code;
  if (typeof nodeCode === 'string' && nodeCode.startsWith('ERR_PARSE_ARGS_')) return { code: 'INVALID_ARGUMENT', status: EXIT_STATUS.usage, message };
  if (typeof nodeCode === 'string' && ENVIRONMENT_ERRNO.has(nodeCode)) return { code: nodeCode, status: EXIT_STATUS.environment, message };
  if (nodeCode === 'ENOENT' || nodeCode === 'EISDIR' || nodeCode === 'ENOTDIR') return { code: 'DATA_NOT_FOUND', status: EXIT_STATUS.data, message };
  return { code: 'INTERNAL', status: EXIT_STATUS.internal, message };
}

/** Whether stderr's last line is a progress line still open (written after `\r`, no newline yet). */
let progressLineOpen = false;

/**
 * A command's stderr log: a line starting with `embedding` is a progress line that overwrites the one before it
 * (`\r`, no newline); any other line, and an error line (`exitWithError`), first ends an open progress line, so
 * nothing is glued to `embedding corpus 200/200`.
 */
export function stderrLog(line: string): void {
  if (line.startsWith('embedding')) {
    process.stderr.write(`\r${line}`);
    progressLineOpen = true;
    return;
  }
  endProgressLine();
  process.stderr.write(`${line}\n`);
}

/** End an open progress line with its newline (nothing when none is open). */
export function endProgressLine(): void {
  if (!progressLineOpen) return;
  progressLineOpen = false;
  process.stderr.write('\n');
}

/**
 * A text as it may reach a terminal: control characters (C0 but tab and newline, DEL, C1) written as `\xNN` escapes,
 * so an argument or file content echoed in a message cannot move the cursor, recolour or retitle the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Print `<prog>: [CODE] message` (plus `hint` lines) to stderr and end the process with the error's status. */
export function exitWithError(prog: string, e: unknown, hint?: string): never {
  const d = describeCliError(e);
  endProgressLine();
  process.stderr.write(`${prog}: [${d.code}] ${printable(d.message)}\n${hint ? `${hint}\n` : ''}`);
  process.exit(d.status);
}

/**
 * The longest command line (all of process.argv, UTF-8 bytes) a command accepts. onnxruntime-node crashes with
 * SIGSEGV once the process's command line reaches about 29 KB, whichever argument is long
 * (docs/upstream/onnxruntime-node-long-argv.md); half of that leaves room for paths.
 */
export const MAX_ARGV_BYTES = 16_384;

/**
 * Refuse (INVALID_ARGUMENT) a command line longer than `maxBytes`, naming the longest argument by position. Called
 * first thing, before any native module loads: the argument stays in process.argv for the life of the process.
 */
export function checkArgvLength(argv: readonly string[], maxBytes = MAX_ARGV_BYTES): void {
  const sizes = argv.map((a) => Buffer.byteLength(a, 'utf8'));
  const total = sizes.reduce((a, b) => a + b + 1, 0);
  if (total <= maxBytes) return;
  const longest = sizes.indexOf(Math.max(...sizes));
  throw new EoError(
    'INVALID_ARGUMENT',
    `the command line is ${total} bytes long (argument ${longest + 1} alone is ${sizes[longest]}); at most ${maxBytes}: a longer one crashes onnxruntime-node (docs/upstream/onnxruntime-node-long-argv.md). Put long inputs in a file.`,
    { argvBytes: total, maxBytes },
  );
}
