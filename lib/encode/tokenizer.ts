import * as fs from 'node:fs';
import { EoError } from '../errors';

/**
 * The SentencePiece-style unigram tokenizer of the Universal Sentence Encoder (lite), re-implemented after
 * tfjs-models' `universal-sentence-encoder/src/tokenizer` so that ids match what the graph was exported with:
 * NFKC normalisation, every space (and the start) becomes the word-start marker '▁', then a Viterbi search over
 * all vocabulary pieces that match at each position (best total log-probability; ties go to the piece that starts
 * later), falling back to the unknown id 0 for a character no piece starts with; consecutive unknowns merge.
 */

/** Vocabulary as shipped in `vocab.json`: `[piece, log-probability]` (a few are null, read as 0); the index is the id. */
export type UseVocabulary = Array<[string, number | null]>;

/** The word-start marker, U+2581 LOWER ONE EIGHTH BLOCK. */
export const WORD_START = '\u2581';

/** Id of the unknown piece. */
export const UNK_ID = 0;

/** Ids below this (unk, <s>, </s>, 3 extra) are control symbols and never produced by matching. */
export const RESERVED_SYMBOLS = 6;

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Vocabulary id when a piece ends here, else -1. */
  id: number;
  score: number;
  /** Length of the piece in code points. */
  length: number;
}

function newNode(): TrieNode {
  return { children: new Map(), id: -1, score: 0, length: 0 };
}

/** A loaded USE tokenizer (plain data: the vocabulary and its trie). */
export interface UseTokenizer {
  vocab: UseVocabulary;
  root: TrieNode;
}

/** Build a tokenizer from a vocabulary; `reservedSymbols` first entries are not matchable. */
export function makeUseTokenizer(vocab: UseVocabulary, reservedSymbols = RESERVED_SYMBOLS): UseTokenizer {
  if (!Array.isArray(vocab) || vocab.length <= reservedSymbols)
    throw new EoError('ENCODER', `tokenizer vocabulary must be an array of [piece, score] with more than ${reservedSymbols} entries`);
  const root = newNode();
  for (let id = reservedSymbols; id < vocab.length; id++) {
    const entry = vocab[id];
    // The shipped vocab.json has a few `null` scores (':', '://', '▁:)', ...); the reference adds them to a number,
    // where null counts as 0, so they do here too.
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || (typeof entry[1] !== 'number' && entry[1] !== null))
      throw new EoError('ENCODER', `tokenizer vocabulary entry ${id} is not [string, number]`, { id });
    let node = root;
    let len = 0;
    for (const ch of entry[0]) {
      let next = node.children.get(ch);
      if (!next) {
        next = newNode();
        node.children.set(ch, next);
      }
      node = next;
      len++;
    }
    if (len === 0) continue;
    node.id = id;
    node.score = entry[1] ?? 0;
    node.length = len;
  }
  return { vocab, root };
}

/** Read `vocab.json` (an array of [piece, score]) and build a tokenizer. */
export function loadUseTokenizer(vocabFile: string): UseTokenizer {
  let vocab: unknown;
  try {
    vocab = JSON.parse(fs.readFileSync(vocabFile, 'utf8'));
  } catch (e) {
    throw new EoError('ENCODER', `cannot read tokenizer vocabulary ${vocabFile}: ${(e as Error).message}`, { file: vocabFile });
  }
  return makeUseTokenizer(vocab as UseVocabulary);
}

/** NFKC, then '▁' at the start and in place of every space (an empty string stays empty). */
export function normalizeForUse(text: string): string {
  const n = text.normalize('NFKC');
  return n.length > 0 ? WORD_START + n.replace(/ /g, WORD_START) : n;
}

/** Token ids of one text (no clipping; the USE graph itself keeps the first 128). */
export function tokenizeUse(tok: UseTokenizer, text: string): number[] {
  const symbols = Array.from(normalizeForUse(text));
  const n = symbols.length;
  if (n === 0) return [];
  // best[e]: best score of a segmentation of symbols[0, e); word[e] / wlen[e]: last piece of it.
  const best = new Float64Array(n + 1);
  const word = new Int32Array(n + 1); // 0 (unk) where nothing ends, as in the reference
  const wlen = new Int32Array(n + 1).fill(1);
  // Arcs grouped by end position; filled in increasing start order, which is the order the reference visits
  // them in ('>=' below lets a later start win a tie).
  const arcsByEnd: Array<Array<[start: number, id: number, score: number, len: number]>> = [];
  for (let i = 0; i <= n; i++) arcsByEnd.push([]);
  for (let i = 0; i < n; i++) {
    let node = tok.root.children.get(symbols[i]);
    let found = false;
    for (let j = i; node && j < n; ) {
      if (node.id >= 0) {
        arcsByEnd[i + node.length].push([i, node.id, node.score, node.length]);
        found = true;
      }
      j++;
      node = j < n ? node.children.get(symbols[j]) : undefined;
    }
    if (!found) arcsByEnd[i + 1].push([i, UNK_ID, 0, 1]);
  }
  for (let e = 1; e <= n; e++) {
    for (const [start, id, score, len] of arcsByEnd[e]) {
      const s = score + best[start];
      if (best[e] === 0 || s >= best[e]) {
        best[e] = s;
        word[e] = id;
        wlen[e] = len;
      }
    }
  }
  const out: number[] = [];
  for (let e = n; e > 0; e -= wlen[e]) out.push(word[e]);
  out.reverse();
  // Merge consecutive unknowns.
  const merged: number[] = [];
  for (let i = 0; i < out.length; i++) if (!(out[i] === UNK_ID && i > 0 && out[i - 1] === UNK_ID)) merged.push(out[i]);
  return merged;
}

/** The pieces of a token id list, for debugging (`▁` marks word starts). */
export function useTokenPieces(tok: UseTokenizer, ids: number[]): string[] {
  return ids.map((id) => tok.vocab[id]?.[0] ?? '?');
}
