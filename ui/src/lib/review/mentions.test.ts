import { describe, expect, it } from 'vitest';
import { mentionedNames, mentionSegments } from './mentions';

describe('mentions', () => {
  it('finds the same names as the store', () => {
    // The cases of assay-core's mentions_are_names_after_an_at_sign.
    expect(mentionedNames('@aiko please fix the answer, cc @min-jun.')).toEqual(['aiko', 'min-jun']);
    expect(mentionedNames('mail a@b.com, not a mention')).toEqual([]);
    expect(mentionedNames('@서연 확인 @aiko @aiko')).toEqual(['서연', 'aiko']);
    expect(mentionedNames('just @ a sign')).toEqual([]);
  });

  it('keeps every character of the text, markup included, as text', () => {
    const body = 'cc @aiko: <img src=x onerror=alert(1)> ok.';
    const segs = mentionSegments(body);
    expect(segs.map((s) => s.text).join('')).toBe(body);
    expect(segs.filter((s) => s.mention).map((s) => s.text)).toEqual(['@aiko']);
  });
});
