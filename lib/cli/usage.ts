/**
 * Usage text of `eo serve`, apart from lib/cli/serve.ts so that `eo --help` and `eo search` print it without
 * loading the service (Fastify, LLM SDKs, the search pipeline): eo.ts imports ./serve only for `eo serve`.
 */
export const SERVE_USAGE = `usage: eo serve [--port 8765] [--host 127.0.0.1] [--sample] [--data DIR] [--semantic best|use-lite|none] [--alpha A] [--rate-limit 300] [--max-query 500] [--llm-router MODEL_ID] [--log]`;
