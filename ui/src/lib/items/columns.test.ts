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
});

