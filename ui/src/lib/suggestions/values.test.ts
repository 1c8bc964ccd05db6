import { describe, expect, it } from 'vitest';
import type { SuggestionKind } from '../api/client';
import { KIND_LABELS, decidesStage, isError, valueFromText } from './values';

describe('suggestion values from edited text', () => {
  it('reads the text form assay-core shows for each kind', () => {
    expect(valueFromText({ kind: 'checklist', criteria: ['a'] }, '- 앵커를 식별한다\n\n나사를 푼다')).toEqual({
      kind: 'checklist',
      criteria: ['앵커를 식별한다', '나사를 푼다'],
    });
    expect(
      valueFromText({ kind: 'direct_request', request: '', subject: '', action: '', object: '' }, 'Hey person1, move it.\n(person1, move, sedan)'),
    ).toEqual({ kind: 'direct_request', request: 'Hey person1, move it.', subject: 'person1', action: 'move', object: 'sedan' });
    expect(valueFromText({ kind: 'distractors', fake_scene: '', superficial: '', non_existent: '' }, 'FSU: a\nSU: b\nNE: c')).toEqual({
      kind: 'distractors',
      fake_scene: 'a',
      superficial: 'b',
      non_existent: 'c',
    });
    expect(valueFromText({ kind: 'target_box', image: 0, bbox: { x_min: 0, y_min: 0, x_max: 1, y_max: 1 } }, 'image 0: [10, 20, 110, 220]')).toEqual({
      kind: 'target_box',
      image: 0,
      bbox: { x_min: 10, y_min: 20, x_max: 110, y_max: 220 },
    });
    expect(
      valueFromText({ kind: 'operation', op: 'identical', question: null, answer: null, reason: '' }, 'answer_correction: the reference was wrong\nanswer: 42'),
    ).toEqual({ kind: 'operation', op: 'answer_correction', reason: 'the reference was wrong', question: null, answer: '42' });
    const keep = valueFromText({ kind: 'image_dependency', keep: true, with_image: 8, without_image: 3, min_gap: 1 }, 'keep: false\nwith image: 8');
    expect(keep).toMatchObject({ kind: 'image_dependency', keep: false, with_image: 8 });
  });

  it('names what an edit is missing instead of accepting it', () => {
    expect(isError(valueFromText({ kind: 'checklist', criteria: [] }, '\n  \n'))).toBe(true);
    expect(isError(valueFromText({ kind: 'checklist', criteria: [] }, 'a\nb\nc\nd\ne\nf'))).toBe(true);
    expect(isError(valueFromText({ kind: 'distractors', fake_scene: '', superficial: '', non_existent: '' }, 'FSU: a\nNE: c'))).toBe(true);
    expect(isError(valueFromText({ kind: 'target_box', image: 0, bbox: { x_min: 0, y_min: 0, x_max: 1, y_max: 1 } }, 'image 0: [10, 20, 5, 220]'))).toBe(true);
    expect(isError(valueFromText({ kind: 'operation', op: 'identical', question: null, answer: null, reason: '' }, 'rewrite: because'))).toBe(true);
  });
});

describe('which kinds are decided at a stage', () => {
  it('are the store’s stage kinds, generated from Rust, and no others', () => {
    const kinds = Object.keys(KIND_LABELS) as SuggestionKind[];
    expect(kinds.filter(decidesStage)).toEqual(['screening', 'difficulty', 'image_dependency']);
  });
});
