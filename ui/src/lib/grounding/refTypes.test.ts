import { describe, expect, it } from 'vitest';
import type { ItemContent } from '../api/client';
import { needsDisambiguation, refTypeForKey } from './refTypes';

const content = (c: Partial<ItemContent>): ItemContent => ({ answer_format: 'short_answer', question: 'q', ...c }) as ItemContent;

describe('referring-expression types', () => {
  it('maps the keys Q W E R', () => {
    expect(['q', 'w', 'E', 'r', 'x'].map(refTypeForKey)).toEqual(['salient', 'ambiguous', 'in_image_cue', 'knowledge_cue', null]);
  });
  it('requires a disambiguated question only for ambiguous references', () => {
    expect(needsDisambiguation(content({ ref_type: 'ambiguous', disambiguated_question: '  ' }))).toBe(true);
    expect(needsDisambiguation(content({ ref_type: 'ambiguous', disambiguated_question: 'the grey car' }))).toBe(false);
    expect(needsDisambiguation(content({ ref_type: 'salient' }))).toBe(false);
  });
});
