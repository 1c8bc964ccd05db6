import type { ItemContent, RefType } from '../api/client';

/** CRAG-MM-Diagnostics' referring-expression types in key order: Q W E R pick them. */
export const REF_TYPE_KEYS: { type: RefType; key: string; label: string; hint: string }[] = [
  { type: 'salient', key: 'q', label: 'Salient', hint: '"this van" is enough to find the target' },
  { type: 'ambiguous', key: 'w', label: 'Ambiguous', hint: 'a bare "this" among many; needs a disambiguated question' },
  { type: 'in_image_cue', key: 'e', label: 'In-image cue', hint: 'a visible attribute names it ("the red car")' },
  { type: 'knowledge_cue', key: 'r', label: 'Knowledge cue', hint: 'knowledge identifies it (a logo names "this restaurant")' },
];

export function refTypeForKey(key: string): RefType | null {
  return REF_TYPE_KEYS.find((r) => r.key === key.toLowerCase())?.type ?? null;
}

/** The rule assay-core enforces on save: an ambiguous reference needs a disambiguated question. */
export function needsDisambiguation(c: ItemContent): boolean {
  return c.ref_type === 'ambiguous' && !(c.disambiguated_question ?? '').trim();
}
