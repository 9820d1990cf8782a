import { EoError } from '../errors';
import type { EncoderSpec, SentenceEncoder } from './types';
import { loadUseLite } from './use-lite';

/** Build an encoder from its serialisable spec (used by worker threads; also handy in configs). */
export async function createEncoder(spec: EncoderSpec): Promise<SentenceEncoder> {
  switch (spec?.kind) {
    case 'use-lite':
      return loadUseLite(spec.options ?? {});
    default:
      throw new EoError('CONFIG', `unknown encoder kind ${JSON.stringify((spec as { kind?: unknown })?.kind)} (known: use-lite)`);
  }
}
