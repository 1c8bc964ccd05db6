import { describe, expect, it } from 'vitest';
import { vagueSegments, vagueWords } from './vague';

describe('vague references', () => {
  it('finds English demonstratives as whole words only', () => {
    expect(vagueWords('was the empire state building around when this was first built?')).toEqual(['this']);
    expect(vagueWords('Is That thing thistle or other?')).toEqual(['That']);
  });
  it('finds Japanese and Korean ones', () => {
    expect(vagueWords('これは何年に建てられましたか？あの建物は？')).toEqual(['これ', 'あの']);
    expect(vagueWords('이거 언제 만들어졌어? 저 건물은?')).toEqual(['이거', '저']);
  });
  it('cuts the text without losing a character', () => {
    const q = 'How much is this one compared to that? それは';
    const segs = vagueSegments(q);
    expect(segs.map((s) => s.text).join('')).toBe(q);
    expect(segs.filter((s) => s.vague).map((s) => s.text)).toEqual(['this', 'that', 'それ']);
  });
  it('leaves a specific question alone', () => {
    expect(vagueWords('how does the range of the tesla model y compare to the hyundai ioniq 5?')).toEqual([]);
  });
});
