import { describe, expect, it } from 'vitest';
import { pagesFor, rowWindow } from './window';

describe('rowWindow', () => {
  it('renders only the visible rows plus overscan at 100,000 items', () => {
    const w = rowWindow(56 * 50_000, 800, 56, 100_000, 5);
    expect(w.first).toBe(49_995);
    expect(w.last).toBe(50_000 + Math.ceil(800 / 56) + 5);
    expect(w.last - w.first).toBeLessThan(40);
    expect(w.padTop + (w.last - w.first + 1) * 56 + w.padBottom).toBe(100_000 * 56);
  });

  it('handles an empty list', () => {
    expect(rowWindow(0, 500, 56, 0)).toEqual({ first: 0, last: -1, padTop: 0, padBottom: 0 });
  });

  it('lists the pages a window spans', () => {
    expect(pagesFor(190, 230, 100)).toEqual([1, 2]);
  });
});
