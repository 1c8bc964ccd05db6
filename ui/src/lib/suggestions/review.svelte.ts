// The open item's suggestions and what the person is doing with them: the edited text per
// suggestion, the one in focus (keys A accept, D reject, S next), the stage a keep/drop
// suggestion decides. One instance serves the editor panel and the workspace's keys.
import { api, asApiError } from '../api/client';
import type { Suggestion, SuggestionValue } from '../api/client';
import { decidesStage, emptyValue, isError, template, valueFromText } from './values';

export type Acceptor = (suggestion: number, value: SuggestionValue, stageId: number | null, reason: string | null) => Promise<boolean>;

export class SuggestionReview {
  list = $state<Suggestion[]>([]);
  /** Index into `pending`. */
  focus = $state(0);
  texts = $state<Record<number, string>>({});
  reasons = $state<Record<number, string>>({});
  /** The stage each keep/drop suggestion decides, chosen per suggestion. */
  stages = $state<Record<number, number | null>>({});
  error = $state<string | null>(null);
  /** Bumped to ask the panel to focus the reason field of the focused suggestion. */
  askReason = $state(0);
  itemId: number | null = null;

  get pending(): Suggestion[] {
    return this.list.filter((s) => !s.fate && s.outcome !== 'error');
  }
  get decided(): Suggestion[] {
    return this.list.filter((s) => s.fate || s.outcome === 'error');
  }
  get focused(): Suggestion | null {
    const p = this.pending;
    return p.length ? p[Math.min(this.focus, p.length - 1)] : null;
  }

  async load(itemId: number): Promise<void> {
    const same = this.itemId === itemId;
    this.itemId = itemId;
    try {
      const list = await api.itemSuggestions(itemId);
      if (this.itemId !== itemId) return;
      this.list = list;
      if (!same) {
        this.texts = {};
        this.reasons = {};
        this.stages = {};
        this.focus = 0;
      }
      for (const s of list) {
        if (this.texts[s.id] === undefined) this.texts[s.id] = s.value ? s.suggested_text : template(s.kind);
      }
      this.error = null;
    } catch (e) {
      this.error = asApiError(e).message;
    }
  }

  next(): void {
    const n = this.pending.length;
    if (n) this.focus = (this.focus + 1) % n;
  }

  /** The value to accept: the suggestion's own, or the person's edit of it. */
  valueOf(s: Suggestion): SuggestionValue | { error: string } {
    const text = this.texts[s.id] ?? '';
    if (s.value && text === s.suggested_text) return s.value;
    return valueFromText(s.value ?? emptyValue(s.kind), text);
  }

  edited(s: Suggestion): boolean {
    return !s.value || (this.texts[s.id] ?? '') !== s.suggested_text;
  }

  async accept(s: Suggestion | null, accept: Acceptor): Promise<void> {
    if (!s) return;
    const v = this.valueOf(s);
    if (isError(v)) {
      this.error = v.error;
      return;
    }
    const stage = this.stages[s.id] ?? null;
    if (decidesStage(s.kind) && stage === null) {
      this.error = 'choose the stage this keep/drop decision is for';
      return;
    }
    this.error = null;
    const reason = (this.reasons[s.id] ?? '').trim() || null;
    const ok = await accept(s.id, v, decidesStage(s.kind) ? stage : null, reason);
    if (ok && this.itemId !== null) await this.load(this.itemId);
  }

  async reject(s: Suggestion | null): Promise<void> {
    if (!s || this.itemId === null) return;
    const reason = (this.reasons[s.id] ?? '').trim();
    if (!reason) {
      this.error = 'say why you reject it';
      this.askReason++;
      return;
    }
    try {
      this.list = await api.rejectSuggestion(this.itemId, s.id, reason);
      this.error = null;
    } catch (e) {
      this.error = asApiError(e).message;
    }
  }
}

export const suggestionReview = new SuggestionReview();
