/**
 * The static encoder's seed ensemble: several models of one vocabulary trained on the same pairs with their own seeds
 * and stacked as one (`StaticTrainConfig.members`; `stackStaticModels` in lib/encode/static.ts).
 */
import * as path from 'node:path';
import { EoError } from '../errors';
import { stackStaticModels, type StaticVocabulary } from '../encode/static';
import { DEFAULT_STATIC_TRAIN_CONFIG, trainStaticModel, type StaticEpochLog, type StaticPair, type StaticTrainConfig, type StaticTrainResult, type TrainStaticOptions } from './static';

/** Member i of an ensemble trains with seed `seed + STATIC_MEMBER_SEED_STRIDE · i`: member 0 is the one-model run of `seed`, and the members of seeds 42, 43, 44 never share one. */
export const STATIC_MEMBER_SEED_STRIDE = 1000;

/** The seed member `i` of an ensemble trained with `seed` trains with. */
export function staticMemberSeed(seed: number, i: number): number {
  return seed + STATIC_MEMBER_SEED_STRIDE * i;
}

/**
 * Train `config.members` models (default 1) on the same pairs, member i with seed `staticMemberSeed(config.seed, i)`,
 * and stack them as one (`stackStaticModels`): a text's vector is the members' unit vectors side by side, so a cosine
 * is the mean of theirs. Seeds' models differ more than most settings do on the style benchmark's dev half, and their
 * mean reads above each of them (docs/measurements.md, "The static encoder as an ensemble of three seeds"). With one
 * member, `trainStaticModel`'s result. A resumable run keeps member i's state in `stateDir/member-<i+1>`. The curve holds
 * every member's epochs (`member`), the seconds are the members' sum.
 */
export function trainStaticEnsemble(vocab: StaticVocabulary, pairs: readonly StaticPair[], config: Partial<StaticTrainConfig> = {}, opts: TrainStaticOptions = {}): StaticTrainResult & { memberResults: StaticTrainResult[] } {
  const { members: asked, ...one } = config;
  const members = asked ?? 1;
  if (!(Number.isInteger(members) && members >= 1)) throw new EoError('CONFIG', `static training members must be an integer ≥ 1 (got ${members})`);
  const seed = one.seed ?? DEFAULT_STATIC_TRAIN_CONFIG.seed;
  const memberResults: StaticTrainResult[] = [];
  for (let i = 0; i < members; i++) {
    const tag = (l: StaticEpochLog): StaticEpochLog => (members > 1 ? { ...l, member: i + 1 } : l);
    const r = trainStaticModel(vocab, pairs, { ...one, seed: staticMemberSeed(seed, i) }, {
      ...opts, ...(opts.stateDir && members > 1 ? { stateDir: path.join(opts.stateDir, `member-${i + 1}`) } : {}), onEpoch: (l) => opts.onEpoch?.(tag(l)),
    });
    memberResults.push({ ...r, curve: r.curve.map(tag) });
  }
  const [first] = memberResults;
  if (members === 1) return { ...first, memberResults };
  return {
    ...first,
    model: stackStaticModels(memberResults.map((r) => r.model)),
    curve: memberResults.flatMap((r) => r.curve),
    config: { ...first.config, seed, members },
    seconds: memberResults.reduce((a, r) => a + r.seconds, 0),
    memberResults,
  };
}
