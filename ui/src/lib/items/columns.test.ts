import { describe, expect, it } from 'vitest';
import { COLUMNS, DEFAULT_COLUMNS, nextSort, pickColumns } from './columns';

describe('table columns', () => {
  it('keeps known columns in order and drops unknown ones', () => {
    expect(pickColumns(['status', 'nope', 'ext_id']).map((c) => c.id)).toEqual(['status', 'ext_id']);
    expect(pickColumns([]).map((c) => c.id)).toEqual(DEFAULT_COLUMNS);
    expect(new Set(COLUMNS.map((c) => c.id)).size).toBe(COLUMNS.length);
  });
  it('cycles a header through ascending, descending and dataset order', () => {
    const a = nextSort(null, 'question');
    expect(a).toEqual({ column: 'question', desc: false });
    const b = nextSort(a, 'question');
    expect(b).toEqual({ column: 'question', desc: true });
    expect(nextSort(b, 'question')).toBeNull();
    expect(nextSort(b, 'status')).toEqual({ column: 'status', desc: false });
  });
  it("sorts a run's score column by its own run", () => {
    const a = nextSort(null, 'run_score', 4);
    expect(a).toEqual({ column: 'run_score', desc: false, run: 4 });
    expect(nextSort(a, 'run_score', 4)).toEqual({ column: 'run_score', desc: true, run: 4 });
    // Another run's column starts again from ascending.
    expect(nextSort(a, 'run_score', 5)).toEqual({ column: 'run_score', desc: false, run: 5 });
    expect(COLUMNS.find((c) => c.id === 'assignees')?.sort).toBe('assignee');
    expect(COLUMNS.find((c) => c.id === 'agreement')?.sort).toBe('agreement');
  });
});

