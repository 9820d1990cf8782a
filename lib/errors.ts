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
  | 'NOT_IMPLEMENTED_OFFLINE'
  | 'LLM'
  | 'LLM_REPLAY_MISS'
  | 'REPORT'
  /** A live or batch call was not made: its estimated cost would exceed $EO_LLM_BUDGET_USD. */
  | 'LLM_BUDGET'
  /** A batch submission may or may not have been accepted by the provider; a person must check before resuming. */
  | 'LLM_BATCH_UNCERTAIN';

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
