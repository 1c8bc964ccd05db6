import { SCORERS_NEEDING_JUDGE, SCORERS_USING_JUDGE } from '../api/bindings';

/** A run's scorer without the suffix a combined protocol adds ("judge+soft_match" -> "judge"). */
const kind = (scorer: string): string => scorer.split('+')[0];

/** The engine's rule, generated from Rust (`ScorerKind::needs_judge`): a judge model is required. */
export function needsJudge(scorer: string | null | undefined): boolean {
  return !!scorer && (SCORERS_NEEDING_JUDGE as readonly string[]).includes(kind(scorer));
}

/** The engine's rule (`ScorerKind::uses_judge`): a judge is asked when one is given. */
export function usesJudge(scorer: string | null | undefined): boolean {
  return !!scorer && (SCORERS_USING_JUDGE as readonly string[]).includes(kind(scorer));
}
