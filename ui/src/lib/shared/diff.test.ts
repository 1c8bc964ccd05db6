import { describe, expect, it } from 'vitest';
import { diffChars } from './diff';

describe('diffChars', () => {
  it('marks changed Japanese characters and keeps both sides readable', () => {
    const segs = diffChars('降水量は171mm', '降水量は117mm');
    expect(segs[0]).toEqual({ kind: 'same', text: '降水量は1' });
    expect(segs.filter((s) => s.kind !== 'ins').map((s) => s.text).join('')).toBe('降水量は171mm');
    expect(segs.filter((s) => s.kind !== 'del').map((s) => s.text).join('')).toBe('降水量は117mm');
    expect(segs.filter((s) => s.kind !== 'same').map((s) => s.text).join('')).toHaveLength(2);
  });

  it('handles Korean insertions and surrogate pairs', () => {
    const segs = diffChars('이거 뭐야?', '이 표지판은 뭐야? 😀');
    expect(segs.filter((s) => s.kind !== 'ins').map((s) => s.text).join('')).toBe('이거 뭐야?');
    expect(segs.filter((s) => s.kind !== 'del').map((s) => s.text).join('')).toBe('이 표지판은 뭐야? 😀');
  });

  it('returns one same segment for equal strings', () => {
    expect(diffChars('同じ', '同じ')).toEqual([{ kind: 'same', text: '同じ' }]);
  });
});
