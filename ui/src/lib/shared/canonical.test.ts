import { describe, expect, it } from 'vitest';
import { sameState } from './canonical';

describe('sameState', () => {
  it('ignores key order and empty optional fields', () => {
    const stored = { question: 'q', disambiguated_question: 'the red car', images: [{ hash: 'h', width: 2 }] };
    const ui = { images: [{ width: 2, hash: 'h', target_boxes: [] }], question: 'q', entity_url: null, metadata: {}, disambiguated_question: 'the red car' };
    expect(sameState(stored, ui)).toBe(true);
  });
  it('sees real differences, including order inside lists', () => {
    expect(sameState({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameState({ a: 'x' }, { a: 'y' })).toBe(false);
    expect(sameState({ a: 0 }, {})).toBe(false);
    expect(sameState({ a: '' }, {})).toBe(false);
  });
});
