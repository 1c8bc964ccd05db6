import { describe, expect, it } from 'vitest';
import { checklistProblems, checklistScore, moveCriterion, removeCriterion } from './checklist';

describe('checklist edits', () => {
  it('finds empty, repeated and too many criteria', () => {
    const p = checklistProblems(['Names the part', '  ', 'names the  PART', 'a', 'b', 'c']);
    expect(p.get(1)).toBe('empty');
    expect(p.get(2)).toBe('repeats criterion 1');
    expect(p.get(-1)).toMatch(/1–5 criteria/);
    expect(checklistProblems(['a', 'b']).size).toBe(0);
  });
  it('moves and removes', () => {
    expect(moveCriterion(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveCriterion(['a', 'b'], 0, -1)).toEqual(['a', 'b']);
    expect(removeCriterion(['a', 'b', 'c'], 1)).toEqual(['a', 'c']);
  });
  it('scores an item as the mean of its ratings', () => {
    expect(checklistScore([1, 0.5, 0])).toBe(0.5);
    expect(checklistScore([])).toBeNull();
  });
});
