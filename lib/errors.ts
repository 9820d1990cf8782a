/** Every error the workbench throws on purpose carries a stable code, so callers can branch on it. */
export type EoErrorCode =
  | 'DATA_NOT_FOUND'
  | 'DATA_PARSE'
  | 'DATA_INVALID'
  | 'CONFIG'
  | 'HTTP'
  | 'CACHE_MISMATCH'
  | 'ENCODER'
  | 'TREC_PARSE'
  | 'BENCH'
  | 'INVALID_ARGUMENT'
  /** A query over the service's length limit (MAX_QUERY_CHARS), refused by `eo search` as by the API. */
  | 'QUERY_TOO_LONG'
  | 'BINARY_QUERY'
  | 'SERVE_PROCESS'
  | 'MARKUP_QUERY'
  | 'NOT_IMPLEMENTED_OFFLINE'
  | 'LLM'
  | 'LLM_REPLAY_MISS'
  | 'REPORT'
  /** A request a model would refuse, found before sending it (e.g. a thinking budget outside the vendor's limits). */
  | 'LLM_CONFIG'
  /** A live or batch call was not made: its estimated cost would exceed $EO_LLM_BUDGET_USD. */
  | 'LLM_BUDGET'
  /** A batch submission may or may not have been accepted by the provider; a person must check before resuming. */
  | 'LLM_BATCH_UNCERTAIN'
  /**
   * A file could not be written because its disk or quota is full (ENOSPC, EDQUOT). The message names the file; nothing
   * partial was left in its place (a whole-file write leaves the old file or none; an append leaves the log as it was).
   */
  | 'DISK_FULL'
  /**
   * A file could not be written for any other reason: no permission (EACCES, EPERM), a read-only file system (EROFS),
   * a path component that is a file where a folder is needed (ENOTDIR, EEXIST), a folder at the file's path (EISDIR), or
   * an I/O error. The message names the file and the system's code; nothing partial was left in its place.
   */
  | 'NOT_WRITABLE'
  /** `eo gpu check`: no WebGPU backend here; the message names the missing link (package, Vulkan loader, adapter). */
  | 'GPU_UNAVAILABLE'
  /** `eo gpu check --parity`: the WebGPU backend trains, but its numbers differ from the CPU path's beyond the tolerance. */
  | 'GPU_PARITY';

export class EoError extends Error {
  readonly code: EoErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: EoErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'EoError';
    this.code = code;
    this.details = details;
  }
}

export function isEoError(e: unknown, code?: EoErrorCode): e is EoError {
  return e instanceof EoError && (code === undefined || e.code === code);
}

/** Codes of warnings: conditions a caller should see but that do not stop the work. */
export type EoWarningCode =
  /** The benchmark's test split has near-duplicates of training queries above the warning count (`leakageAudit`). */
  | 'BENCH_LEAKAGE';

/** A coded warning, handed to an `onWarning` callback (never thrown). */
export interface EoWarning {
  code: EoWarningCode;
  message: string;
  details?: Record<string, unknown>;
}
