import { EoError } from '../errors';
import type { EncoderSpec, SentenceEncoder } from './types';
import { loadUseLite } from './use-lite';
import { loadFinetunedUseLite } from './trainable-use';

/** Build an encoder from its serialisable spec (used by worker threads; also handy in configs). */
export async function createEncoder(spec: EncoderSpec): Promise<SentenceEncoder> {
  switch (spec?.kind) {
    case 'use-lite':
      return loadUseLite(spec.options ?? {});
    case 'use-lite-finetuned':
      return loadFinetunedUseLite(spec.options);
    default:
      throw new EoError('CONFIG', `unknown encoder kind ${JSON.stringify((spec as { kind?: unknown })?.kind)} (known: use-lite, use-lite-finetuned)`);
  }
}
