/** Marker that replaces a secret in any text the workbench writes or throws. */
export const REDACTED = '[REDACTED]';

/** Patterns that look like provider keys or bearer credentials (scrubbed even when not known as a secret). */
const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{12,}/g, // OpenAI / Anthropic / DeepSeek style keys
  /\b(Bearer\s+)[A-Za-z0-9_\-.=]{12,}/gi,
  /\b(x-api-key["']?\s*[:=]\s*["']?)[A-Za-z0-9_\-.]{12,}/gi,
];

/**
 * `text` with every occurrence of each secret (≥ 4 characters) and anything shaped like a provider key or bearer
 * token replaced by `[REDACTED]`.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  for (const re of KEY_PATTERNS) out = out.replace(re, (_m, prefix?: string) => (typeof prefix === 'string' ? prefix : '') + REDACTED);
  return out;
}
