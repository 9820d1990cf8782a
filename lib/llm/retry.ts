/**
 * The one retry policy of live calls, for every vendor (issue 40): the client retries, the vendors' SDKs do not
 * (they are opened with maxRetries 0), so a vendor written with plain fetch gets the same retries as the built-in ones.
 * Retried: HTTP 408, 409, 429 and 5xx, and errors with no HTTP status (connection errors, timeouts). A wait the server
 * asks for (`retry-after-ms`, or `retry-after` in seconds or as an HTTP date) is honoured up to 60 s; otherwise, or
 * beyond that, the wait doubles from 0.5 s up to 8 s (the SDKs' curve, without their jitter: the same run waits alike).
 * The workbench's own errors (EoError: a missing key, a refused configuration) are never retried.
 */
import { isEoError } from '../errors';
import { sleep as wait } from '../util/lock';

/** The longest server-asked wait honoured, in ms (a longer one falls back to the backoff). */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Whether an error from a vendor call is worth another attempt. */
export function isRetryable(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A header of an error's response (`headers` as a fetch Headers or a plain record), or undefined. */
function headerOf(e: unknown, name: string): string | undefined {
  const h = (e as { headers?: unknown })?.headers;
  if (!h || typeof h !== 'object') return undefined;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  // a plain record, as some SDK versions give it: any capitalisation (`name` is lower-case)
  const rec = h as Record<string, unknown>;
  const v = rec[name] ?? Object.entries(rec).find(([k]) => k.toLowerCase() === name)?.[1];
  return typeof v === 'string' ? v : undefined;
}

/** The wait a failed call's response asks for, in ms (`retry-after-ms`, then `retry-after`), or null. */
export function retryAfterMs(e: unknown, now = Date.now()): number | null {
  const ms = headerOf(e, 'retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms);
  const ra = headerOf(e, 'retry-after');
  if (ra === undefined) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Number(ra) * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The wait before retry `attempt` (0-based) when the server asks for none: 0.5 s doubling, at most 8 s. */
export function backoffMs(attempt: number): number {
  return Math.min(8000, 500 * 2 ** attempt);
}

/** The wait before the next attempt after error `e` on attempt `attempt`. */
export function retryWaitMs(e: unknown, attempt: number): number {
  const asked = retryAfterMs(e);
  return asked !== null && asked <= MAX_RETRY_AFTER_MS ? asked : backoffMs(attempt);
}

/** The HTTP status of a vendor error (`status` on the SDKs' errors and on `vendorHttpError`'s), or undefined. */
export function errorStatus(e: unknown): number | undefined {
  const s = (e as { status?: unknown })?.status;
  return typeof s === 'number' ? s : undefined;
}

/**
 * The error a vendor written with fetch throws for a non-2xx response: it carries the status and the response's
 * headers, so the client's retry policy can read them (the SDKs' errors carry both already).
 */
export function vendorHttpError(response: Pick<Response, 'status' | 'headers'>, message: string): Error & { status: number; headers: Headers } {
  return Object.assign(new Error(message), { status: response.status, headers: response.headers });
}

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** How to wait. Default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Told before each wait: the attempt that failed (1-based), the wait and the error. */
  onRetry?: (attempt: number, waitMs: number, e: unknown) => void;
}

/** `call` under the policy; on a final failure the last error is thrown with `attempts` set on it. */
export async function withRetries<T>(call: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const sleep = opts.sleep ?? wait;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (isEoError(e) || attempt >= opts.maxRetries || !isRetryable(errorStatus(e))) {
        if (e && typeof e === 'object') Object.assign(e, { attempts: attempt + 1 });
        throw e;
      }
      const wait = retryWaitMs(e, attempt);
      opts.onRetry?.(attempt + 1, wait, e);
      await sleep(wait);
    }
  }
}
