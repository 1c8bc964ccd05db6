import { describe, expect, it } from 'vitest';
import { COLUMNS, DEFAULT_COLUMNS, nextSort, pickColumns, scaledWindow } from './columns';

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

describe('scaledWindow', () => {
  it('is a plain window while the list fits', () => {
    const w = scaledWindow(3200, 600, 32, 1000);
    expect(w.height).toBe(32000);
    expect(w.first).toBe(100 - 6);
    expect(w.offset).toBe(w.first * 32);
    expect(w.last).toBeGreaterThanOrEqual(100 + 600 / 32);
  });
  it('scales a million rows into a height the browser can draw and reaches the last row', () => {
    const total = 1_000_000;
    const top = scaledWindow(0, 600, 32, total);
    expect(top.height).toBe(8_000_000);
    expect(top.first).toBe(0);
    const end = scaledWindow(8_000_000 - 600, 600, 32, total);
    expect(end.last).toBe(total - 1);
    // The block drawn covers the viewport.
    expect(end.offset).toBeLessThanOrEqual(8_000_000 - 600);
    expect(end.offset + (end.last - end.first + 1) * 32).toBeGreaterThanOrEqual(8_000_000);
    const mid = scaledWindow(4_000_000, 600, 32, total);
    expect(Math.abs(mid.first - total / 2)).toBeLessThan(40);
    expect(mid.offset).toBeLessThanOrEqual(4_000_000);
  });
  it('has no rows for an empty list', () => {
    expect(scaledWindow(0, 600, 32, 0).last).toBe(-1);
  });
});
