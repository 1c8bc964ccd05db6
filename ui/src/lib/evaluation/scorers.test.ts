import { describe, expect, it } from 'vitest';
import { SCORERS } from '../api/bindings';
import { needsJudge, usesJudge } from './scorers';

describe('which scorers call a judge', () => {
  it('follows the generated rule, for every scorer the engine knows', () => {
    expect(SCORERS.filter((s) => needsJudge(s))).toEqual(['judge', 'checklist_judge', 'rating']);
    expect(SCORERS.filter((s) => usesJudge(s))).toEqual(['judge', 'checklist_judge', 'rating', 'identification', 'crag_qa']);
  });
  it('reads a combined protocol by its first scorer and nothing as no judge', () => {
    expect(needsJudge('checklist_judge+soft_match')).toBe(true);
    expect(usesJudge('soft_match')).toBe(false);
    expect(needsJudge(null)).toBe(false);
    expect(usesJudge('')).toBe(false);
  });
});
