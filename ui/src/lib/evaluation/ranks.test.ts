import { describe, expect, it } from 'vitest';
import { ranks } from './ranks';

describe('ranks', () => {
  it('ranks by accuracy per side, best first, ties by name', () => {
    const m = [
      { model: 'b', before: 0.5, after: 0.9 },
      { model: 'a', before: 0.7, after: 0.4 },
      { model: 'c', before: 0.5, after: 0.6 },
    ];
    expect([...ranks(m, 'before')]).toEqual([['a', 1], ['b', 2], ['c', 3]]);
    expect([...ranks(m, 'after')]).toEqual([['b', 1], ['c', 2], ['a', 3]]);
  });
});
