import type { IssueTag, RefinementOp } from '../api/client';

/** The six refinement operations in key order: keys 1-6 pick them. */
export const OPS: { op: RefinementOp; label: string; hint: string }[] = [
  { op: 'identical', label: 'Identical', hint: 'kept as-is, no issue found' },
  { op: 'minor_edit', label: 'Minor edit', hint: 'wording, formatting or typo fix' },
  { op: 'disambiguation', label: 'Disambiguation', hint: 'clarified, original intent kept' },
  { op: 'answer_correction', label: 'Answer correction', hint: 'answer corrected' },
  { op: 'replacement', label: 'Replacement', hint: 'new question-answer pair on the same images' },
  { op: 'remove', label: 'Remove', hint: 'dropped: insufficient visual information or redundancy' },
];

export const TAGS: { tag: IssueTag; label: string }[] = [
  { tag: 'ambiguous', label: 'Ambiguous' },
  { tag: 'not_image_grounded', label: 'Not image-grounded' },
  { tag: 'wrong_answer', label: 'Wrong answer' },
  { tag: 'subjective', label: 'Subjective' },
];

export function opForKey(key: string): RefinementOp | null {
  const n = Number(key);
  return Number.isInteger(n) && n >= 1 && n <= 6 ? OPS[n - 1].op : null;
}

export function opLabel(op: string | null): string {
  return OPS.find((o) => o.op === op)?.label ?? 'No op yet';
}
