// Editing one item: a working copy, autosave (debounced and on blur), drafts that survive a
// crash, and undo/redo where every step is a new revision.
import { api, asApiError } from '../api/client';
import type { IssueTag, ItemContent, ItemDetail, ItemStatus, RefType, RefinementOp, ReviewDecision, SuggestionValue } from '../api/client';
import { needsDisambiguation } from '../grounding/refTypes';
import { checklistProblems } from './checklist';
import { clearDraft, editOf, loadDraft, saveDraft } from './drafts';
import { UndoStack } from './undo';
import { sameState } from '../shared/canonical';

export type Snapshot = { content: ItemContent; op: RefinementOp | null; tags: IssueTag[]; status: ItemStatus };

/** Parts of an item a person chooses between when two edits of it meet. */
export const CONFLICT_FIELDS = ['question', 'answer', 'options', 'op', 'tags', 'other'] as const;
export type ConflictField = (typeof CONFLICT_FIELDS)[number];

/** This window's unsaved change next to the revision saved elsewhere in the meantime. */
export type Conflict = { mine: Snapshot; theirs: Snapshot; theirsDetail: ItemDetail };

/** The value of one conflict field, for showing and comparing. */
export function fieldValue(s: Snapshot, f: ConflictField): string {
  const c = s.content;
  switch (f) {
    case 'question':
      return c.question;
    case 'answer':
      return c.answer ?? '';
    case 'options':
      return (c.options ?? []).map((o, i) => `${String.fromCharCode(65 + i)}${i === c.correct_option ? '*' : ''} ${o.text}`).join('\n');
    case 'op':
      return s.op ?? '';
    case 'tags':
      return s.tags.join(', ');
    case 'other': {
      const rest: Record<string, unknown> = { ...c };
      for (const k of ['question', 'answer', 'options', 'correct_option']) delete rest[k];
      return JSON.stringify(rest);
    }
  }
}

/** `mine` with the fields chosen as "theirs" taken from `theirs`. */
export function merge(mine: Snapshot, theirs: Snapshot, take: Partial<Record<ConflictField, 'mine' | 'theirs'>>): Snapshot {
  const out = structuredClone(mine);
  const t = structuredClone(theirs);
  if (take.question === 'theirs') out.content.question = t.content.question;
  if (take.answer === 'theirs') out.content.answer = t.content.answer;
  if (take.options === 'theirs') {
    out.content.options = t.content.options;
    out.content.correct_option = t.content.correct_option;
  }
  if (take.op === 'theirs') out.op = t.op;
  if (take.tags === 'theirs') out.tags = t.tags;
  if (take.other === 'theirs') {
    out.content = { ...t.content, question: out.content.question, answer: out.content.answer, options: out.content.options, correct_option: out.content.correct_option };
  }
  return out;
}

const AUTOSAVE_MS = 800;

function same(a: Snapshot, b: Snapshot): boolean {
  return sameState(a, b);
}

export class Editor {
  detail = $state<ItemDetail | null>(null);
  work = $state<Snapshot | null>(null);
  saving = $state(false);
  savedAt = $state<string | null>(null);
  error = $state<string | null>(null);
  /** Set when this window's change met another one saved since it started; saving waits. */
  conflict = $state<Conflict | null>(null);
  /** Why the working copy is not being saved yet (a rule it does not meet); the draft is kept. */
  held = $state<string | null>(null);
  private committed: Snapshot | null = null;
  private undo = new UndoStack<Snapshot>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onSaved: (d: ItemDetail) => void;
  private project: string;

  constructor(project: string, onSaved: (d: ItemDetail) => void) {
    this.project = project;
    this.onSaved = onSaved;
  }

  private snapshotOf(d: ItemDetail): Snapshot {
    return { content: d.item.content, op: d.item.op, tags: d.item.tags, status: d.item.status };
  }

  /** The item being fetched, so a second request for it (the URL following a click) waits. */
  loadingId: number | null = null;

  async load(id: number): Promise<void> {
    this.loadingId = id;
    await this.flush();
    try {
      const d = await api.itemDetail(id);
      if (this.loadingId !== id) return;
      this.loadingId = null;
      this.undo.clear();
      this.conflict = null;
      this.held = null;
      // The save state describes the item on screen, not the one before it.
      this.savedAt = null;
      this.detail = d;
      this.committed = this.snapshotOf(d);
      const draft = loadDraft(this.project, id);
      if (draft && draft.baseRev === d.item.rev) {
        this.work = { content: draft.content, op: draft.op, tags: draft.tags, status: draft.status };
        await this.save();
      } else if (draft) {
        // Typed over a revision that has since been superseded: show both, lose nothing.
        const mine: Snapshot = { content: draft.content, op: draft.op, tags: draft.tags, status: draft.status };
        this.work = structuredClone(mine);
        this.conflict = { mine, theirs: this.snapshotOf(d), theirsDetail: d };
      } else {
        this.work = structuredClone($state.snapshot(this.committed)) as Snapshot;
      }
      this.error = null;
    } catch (e) {
      if (this.loadingId === id) this.loadingId = null;
      this.error = asApiError(e).message;
    }
  }

  /** Call after any change to `work`: keeps a draft and schedules a save. */
  changed(): void {
    if (!this.detail || !this.work) return;
    const w = $state.snapshot(this.work) as Snapshot;
    saveDraft(this.project, this.detail.item.id, { ...w, baseRev: this.detail.item.rev });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.save(), AUTOSAVE_MS);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    await this.save();
  }

  // Saves run one after another: a second save (autosave, blur, undo) waits for the one in
  // flight, so it sees the revision that one produced instead of racing it.
  private chain: Promise<void> = Promise.resolve();

  save(recordUndo = true): Promise<void> {
    const run = this.chain.then(() => this.saveNow(recordUndo));
    // The caller gets `run` and its failure (shown as this.error); the chain only orders saves.
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async saveNow(recordUndo: boolean): Promise<void> {
    clearTimeout(this.timer);
    if (!this.detail || !this.work || !this.committed || this.conflict) return;
    const w = $state.snapshot(this.work) as Snapshot;
    if (same(w, this.committed)) {
      clearDraft(this.project, this.detail.item.id);
      return;
    }
    // The store refuses this (assay-core's save rule); wait for the missing field instead.
    if (needsDisambiguation(w.content) && !needsDisambiguation(this.committed.content)) {
      this.held = 'Not saved yet: an ambiguous reference needs a disambiguated question.';
      return;
    }
    const list = w.content.checklist ?? [];
    if (!sameState(list, this.committed.content.checklist ?? [])) {
      const problems = checklistProblems(list);
      if (problems.size) {
        const [i, m] = [...problems][0];
        this.held = `Not saved yet: ${i < 0 ? m : `criterion ${i + 1} is ${m}`}.`;
        return;
      }
    }
    this.held = null;
    const id = this.detail.item.id;
    const baseRev = this.detail.item.rev;
    const edit = editOf(w, null, baseRev);
    this.saving = true;
    try {
      const d = await api.saveItem(id, edit);
      // A save the store found to change nothing is not a step to undo.
      if (recordUndo && d.item.rev !== baseRev) this.undo.record(this.committed);
      this.committed = this.snapshotOf(d);
      clearDraft(this.project, id);
      if (this.detail?.item.id === id) {
        this.detail = d;
        this.work = { ...(this.work as Snapshot), status: d.item.status };
      }
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a one-off timestamp string
      this.savedAt = new Date().toLocaleTimeString();
      this.error = null;
      this.onSaved(d);
    } catch (e) {
      const err = asApiError(e);
      if (err.code === 'conflict') {
        // Someone else saved this item since it was opened: keep the draft, show both.
        try {
          const theirs = await api.itemDetail(id);
          this.conflict = { mine: w, theirs: this.snapshotOf(theirs), theirsDetail: theirs };
          this.error = null;
        } catch (e2) {
          this.error = asApiError(e2).message;
        }
      } else {
        this.error = err.message;
      }
    } finally {
      this.saving = false;
    }
  }

  /** Ends a conflict: the chosen fields of each side, saved over the other revision. */
  async resolve(take: Partial<Record<ConflictField, 'mine' | 'theirs'>>): Promise<void> {
    const c = this.conflict;
    if (!c) return;
    // What this window holds now (typing may have gone on while the conflict was shown).
    const snap = $state.snapshot(c) as Conflict;
    const mine = this.work ? ($state.snapshot(this.work) as Snapshot) : snap.mine;
    const merged = merge(mine, snap.theirs, take);
    this.detail = snap.theirsDetail;
    this.committed = snap.theirs;
    this.work = merged;
    this.conflict = null;
    this.onSaved(snap.theirsDetail);
    await this.save();
  }

  async undoStep(): Promise<void> {
    await this.flush();
    if (!this.committed) return;
    const prev = this.undo.undo(this.committed);
    if (prev) await this.apply(prev);
  }

  async redoStep(): Promise<void> {
    await this.flush();
    if (!this.committed) return;
    const next = this.undo.redo(this.committed);
    if (next) await this.apply(next);
  }

  private async apply(s: Snapshot): Promise<void> {
    this.work = structuredClone(s);
    await this.save(false);
  }

  setOp(op: RefinementOp): void {
    if (!this.work) return;
    this.work.op = op;
    void this.save();
  }

  /** Approves the current revision or asks for changes (the store refuses one's own). */
  async review(decision: ReviewDecision, comment: string): Promise<void> {
    if (!this.detail) return;
    await this.flush();
    await this.replaceWith(api.review(this.detail.item.id, decision, comment.trim() || null));
  }

  /** Accepts a suggestion (as given or edited) on the revision on screen; true when written. */
  async acceptSuggestion(suggestion: number, value: SuggestionValue, stageId: number | null, reason: string | null): Promise<boolean> {
    if (!this.detail) return false;
    await this.flush();
    // The person's own typing comes first: a change that could not be saved (a rule it does
    // not meet, a conflict, an error) is not replaced by the draft.
    const w = this.work ? ($state.snapshot(this.work) as Snapshot) : null;
    if (this.conflict || this.held || this.error || !w || !this.committed || !same(w, this.committed)) {
      this.error = this.error ?? 'save or undo your own change to this item before accepting a suggestion';
      return false;
    }
    const before = this.committed;
    await this.replaceWith(api.acceptSuggestion(this.detail.item.id, suggestion, this.detail.item.rev, value, stageId, reason));
    if (this.error !== null) return false;
    // Undo takes the accepted draft back like any edit.
    this.undo.record(before);
    return true;
  }

  /** An auditor signs the item off (locking it) or reopens it. */
  async signOff(signed: boolean): Promise<void> {
    if (!this.detail) return;
    await this.flush();
    await this.replaceWith(api.signOff(this.detail.item.id, signed, null));
  }

  private async replaceWith(p: Promise<ItemDetail>): Promise<void> {
    try {
      const d = await p;
      this.detail = d;
      this.committed = this.snapshotOf(d);
      this.work = structuredClone($state.snapshot(this.committed)) as Snapshot;
      this.error = null;
      this.onSaved(d);
    } catch (e) {
      this.error = asApiError(e).message;
    }
  }

  setRefType(t: RefType | null): void {
    if (!this.work) return;
    this.work.content.ref_type = t;
    this.changed();
    void this.save();
  }

  toggleTag(tag: IssueTag): void {
    if (!this.work) return;
    this.work.tags = this.work.tags.includes(tag) ? this.work.tags.filter((t) => t !== tag) : [...this.work.tags, tag];
    void this.save();
  }

  async restore(rev: number): Promise<void> {
    if (!this.detail) return;
    await this.flush();
    try {
      const d = await api.restoreRevision(this.detail.item.id, rev);
      if (this.committed) this.undo.record(this.committed);
      this.detail = d;
      this.committed = this.snapshotOf(d);
      this.work = structuredClone($state.snapshot(this.committed)) as Snapshot;
      this.onSaved(d);
    } catch (e) {
      this.error = asApiError(e).message;
    }
  }
}
