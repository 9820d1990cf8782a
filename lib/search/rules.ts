/**
 * The query rules that shape a fused ranking, in one place for every path (`search` for one question, `searchBatch`
 * with `rules: true` for evaluation runs): the question's period and places (`constraints.ts`: demote what cannot
 * cover them), then the identifiers it names (`identifiers.ts`: demote what lacks them). Both only ever move
 * datasets down, both say why per result.
 */
import type { ParsedQuery } from '../router/types';
import { applyConstraints, constraintsFromParsed, hasConstraints, type ConstrainedScores, type ConstraintRule, type QueryConstraints } from './constraints';
import { applyIdentifierRule, identifierVocabulary, namedIdentifiers, type IdentifierRule, type IdentifierScores, type NamedIdentifier } from './identifiers';
import { withoutIgnored, type IgnoreParsed } from './filters';
import type { SearchEngine } from './types';

/** The rules of one query (each has its own defaults; see their modules). */
export interface QueryRules {
  /** Period and place rule. Default: demote ×0.5 per violated constraint. */
  constraints?: ConstraintRule;
  /** Named-identifier rule. Default: the engine's (`engine.identifierRule`), else demote ×0.01 per lacking identifier. */
  identifiers?: IdentifierRule;
  /** Parsed period, places and named identifiers the user removed (the page's chips). Default none. */
  ignore?: IgnoreParsed;
}

export interface RuledScores {
  /** Scores after both rules (the input when neither applied). */
  scores: Float32Array;
  asked: QueryConstraints;
  constrained: ConstrainedScores | null;
  named: NamedIdentifier[];
  identified: IdentifierScores | null;
}

/** The identifiers a query names on this engine's corpus (the vocabulary is built once per corpus). */
export function queryIdentifiers(engine: Pick<SearchEngine, 'corpus'>, text: string): NamedIdentifier[] {
  return namedIdentifiers(identifierVocabulary(engine.corpus), text);
}

/**
 * Apply the rules to one query's final (fused) scores. `named`: the query's identifiers when already found (the
 * adaptive fusion finds them first); `text`: where to find them otherwise (the retrieval text).
 */
export function applyQueryRules(
  engine: Pick<SearchEngine, 'corpus' | 'identifierRule'>, parsed: Pick<ParsedQuery, 'period' | 'places'>, scores: Float32Array, text: string,
  rules: QueryRules = {}, named?: NamedIdentifier[],
): RuledScores {
  const asked = withoutIgnored(constraintsFromParsed(parsed), rules.ignore);
  const constrained = hasConstraints(asked) && rules.constraints?.mode !== 'off' ? applyConstraints(scores, engine.corpus.datasets, asked, rules.constraints) : null;
  const afterConstraints = constrained ? constrained.scores : scores;
  const baseRule = rules.identifiers ?? engine.identifierRule ?? {};
  const ignoredIds = rules.ignore?.identifiers ?? [];
  const idRule = ignoredIds.length ? { ...baseRule, ignore: [...(baseRule.ignore ?? []), ...ignoredIds] } : baseRule;
  const ids = idRule.mode === 'off' ? [] : named ?? queryIdentifiers(engine, text);
  const identified = ids.length ? applyIdentifierRule(afterConstraints, ids, idRule) : null;
  return { scores: identified ? identified.scores : afterConstraints, asked, constrained, named: ids, identified };
}
