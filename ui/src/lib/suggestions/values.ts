// A suggestion's value as the text a person edits, and back. The text form is the one assay-core
// shows (`SuggestionValue::text`), so the diff, the edit box and the stored edit distance agree.
import type { RefinementOp, SuggestionKind, SuggestionValue } from '../api/client';
import { REFINEMENT_OPS, SUGGESTION_KINDS_DECIDING_STAGE } from '../api/bindings';

export const KIND_LABELS: Record<SuggestionKind, string> = {
  screening: 'Screening (safety, objectivity, time)',
  difficulty: 'Difficulty (strong models’ runs)',
  image_dependency: 'Image dependency (with vs without image)',
  checklist: 'Checklist draft',
  explicit_rewrite: 'Explicit rewrite',
  direct_request: 'Direct request + triplet (VAGUE)',
  indirect_utterance: 'Indirect utterance (VAGUE)',
  distractors: 'Distractors FSU / SU / NE (VAGUE)',
  crag_questions: 'Disambiguated + text-only questions',
  target_box: 'Target box',
  operation: 'Refinement operation + fix',
};

/** Kinds whose acceptance is a keep/drop decision at a filtering stage (the store's rule). */
export function decidesStage(kind: SuggestionKind): boolean {
  return SUGGESTION_KINDS_DECIDING_STAGE.includes(kind);
}

const OPS: readonly RefinementOp[] = REFINEMENT_OPS;

function after(line: string | undefined, label: string): string | null {
  if (line === undefined) return null;
  const l = line.trim();
  return l.toLowerCase().startsWith(label.toLowerCase() + ':') ? l.slice(label.length + 1).trim() : null;
}

function labelled(lines: string[], label: string): string | null {
  for (const l of lines) {
    const v = after(l, label);
    if (v !== null) return v;
  }
  return null;
}

/** The value the person's text describes, starting from the suggested one; an error names
 * what the text is missing. */
export function valueFromText(base: SuggestionValue, text: string): SuggestionValue | { error: string } {
  const lines = text.split('\n').map((l) => l.trim());
  const nonEmpty = lines.filter(Boolean);
  switch (base.kind) {
    case 'checklist': {
      const criteria = nonEmpty.map((l) => l.replace(/^[-*•]\s*/, ''));
      if (!criteria.length) return { error: 'a checklist needs at least one criterion' };
      if (criteria.length > 5) return { error: `a checklist has 1-5 criteria, found ${criteria.length}` };
      return { kind: 'checklist', criteria };
    }
    case 'explicit_rewrite':
      return text.trim() ? { kind: 'explicit_rewrite', question: text.trim() } : { error: 'the rewrite is empty' };
    case 'indirect_utterance':
      return text.trim() ? { kind: 'indirect_utterance', utterance: text.trim() } : { error: 'the utterance is empty' };
    case 'direct_request': {
      const m = /^\((.*),(.*),(.*)\)$/.exec(nonEmpty[1] ?? '');
      if (!nonEmpty[0] || !m) return { error: 'write the request, then "(subject, action, object)" on the next line' };
      return { kind: 'direct_request', request: nonEmpty[0], subject: m[1].trim(), action: m[2].trim(), object: m[3].trim() };
    }
    case 'distractors': {
      const fake_scene = labelled(lines, 'FSU');
      const superficial = labelled(lines, 'SU');
      const non_existent = labelled(lines, 'NE');
      if (!fake_scene || !superficial || !non_existent) return { error: 'keep the three lines "FSU: …", "SU: …", "NE: …"' };
      return { kind: 'distractors', fake_scene, superficial, non_existent };
    }
    case 'crag_questions': {
      const d = labelled(lines, 'disambiguated');
      const t = labelled(lines, 'text-only');
      if (!d && !t) return { error: 'keep "disambiguated: …" and/or "text-only: …"' };
      return { kind: 'crag_questions', disambiguated: d || null, text_only: t || null };
    }
    case 'target_box': {
      const m = /image\s+(\d+)\s*:\s*\[\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\]/i.exec(text);
      if (!m) return { error: 'write "image N: [x1, y1, x2, y2]"' };
      const [x_min, y_min, x_max, y_max] = m.slice(2, 6).map(Number);
      if (!(x_max > x_min && y_max > y_min)) return { error: 'the box is empty or inverted' };
      return { kind: 'target_box', image: Number(m[1]), bbox: { x_min, y_min, x_max, y_max } };
    }
    case 'operation': {
      const first = nonEmpty[0] ?? '';
      const at = first.indexOf(':');
      const op = (at < 0 ? first : first.slice(0, at)).trim() as RefinementOp;
      if (!OPS.includes(op)) return { error: `start with one of ${OPS.join(', ')}, then ": reason"` };
      const reason = at < 0 ? '' : first.slice(at + 1).trim();
      if (!reason) return { error: 'give the reason after the operation' };
      return { kind: 'operation', op, reason, question: labelled(lines, 'question'), answer: labelled(lines, 'answer') };
    }
    case 'screening':
    case 'difficulty':
    case 'image_dependency': {
      const keep = labelled(lines, 'keep');
      if (keep !== 'true' && keep !== 'false') return { error: 'keep the line "keep: true" or "keep: false"' };
      return { ...base, keep: keep === 'true' } as SuggestionValue;
    }
  }
}

export function isError(v: SuggestionValue | { error: string }): v is { error: string } {
  return 'error' in v && !('kind' in v);
}

/** A value for an unparsed suggestion, which the person writes from the raw output. */
export function emptyValue(kind: SuggestionKind): SuggestionValue {
  switch (kind) {
    case 'checklist':
      return { kind, criteria: [] };
    case 'explicit_rewrite':
      return { kind, question: '' };
    case 'indirect_utterance':
      return { kind, utterance: '' };
    case 'direct_request':
      return { kind, request: '', subject: '', action: '', object: '' };
    case 'distractors':
      return { kind, fake_scene: '', superficial: '', non_existent: '' };
    case 'crag_questions':
      return { kind, disambiguated: null, text_only: null };
    case 'target_box':
      return { kind, image: 0, bbox: { x_min: 0, y_min: 0, x_max: 0, y_max: 0 } };
    case 'operation':
      return { kind, op: 'identical', question: null, answer: null, reason: '' };
    case 'screening':
      return { kind, keep: true, flags: [] };
    case 'difficulty':
      return { kind, keep: true, mean: 0, threshold: 0.6, scores: [] };
    case 'image_dependency':
      return { kind, keep: true, with_image: 0, without_image: 0, min_gap: 1 };
  }
}

/** The text a person starts from for an unparsed suggestion. */
export function template(kind: SuggestionKind): string {
  switch (kind) {
    case 'direct_request':
      return 'Hey, person1, …\n(person1, action, object)';
    case 'distractors':
      return 'FSU: \nSU: \nNE: ';
    case 'crag_questions':
      return 'disambiguated: \ntext-only: ';
    case 'target_box':
      return 'image 0: [x1, y1, x2, y2]';
    case 'operation':
      return 'minor_edit: reason\nquestion: \nanswer: ';
    case 'screening':
    case 'difficulty':
    case 'image_dependency':
      return 'keep: true';
    default:
      return '';
  }
}
