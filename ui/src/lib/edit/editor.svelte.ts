// Editing one item: a working copy, autosave (debounced and on blur), drafts that survive a
// crash, and undo/redo where every step is a new revision.
import { api, asApiError } from '../api/client';
import type { IssueTag, ItemContent, ItemDetail, ItemStatus, RefinementOp } from '../api/client';
import { clearDraft, editOf, loadDraft, saveDraft } from './drafts';
import { UndoStack } from './undo';

export type Snapshot = { content: ItemContent; op: RefinementOp | null; tags: IssueTag[]; status: ItemStatus };

const AUTOSAVE_MS = 800;

function same(a: Snapshot, b: Snapshot): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class Editor {
  detail = $state<ItemDetail | null>(null);
  work = $state<Snapshot | null>(null);
  saving = $state(false);
  savedAt = $state<string | null>(null);
  error = $state<string | null>(null);
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

  async load(id: number): Promise<void> {
    await this.flush();
    try {
      const d = await api.itemDetail(id);
      this.undo.clear();
      this.detail = d;
      this.committed = this.snapshotOf(d);
      const draft = loadDraft(this.project, id);
      if (draft && draft.baseRev === d.item.rev) {
        this.work = { content: draft.content, op: draft.op, tags: draft.tags, status: draft.status };
        await this.save();
      } else {
        if (draft) clearDraft(this.project, id);
        this.work = structuredClone($state.snapshot(this.committed)) as Snapshot;
      }
      this.error = null;
    } catch (e) {
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

  async save(recordUndo = true): Promise<void> {
    clearTimeout(this.timer);
    if (!this.detail || !this.work || !this.committed) return;
    const w = $state.snapshot(this.work) as Snapshot;
    if (same(w, this.committed)) {
      clearDraft(this.project, this.detail.item.id);
      return;
    }
    const id = this.detail.item.id;
    const edit = editOf(w);
    this.saving = true;
    try {
      const d = await api.saveItem(id, edit);
      if (recordUndo) this.undo.record(this.committed);
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
      this.error = asApiError(e).message;
    } finally {
      this.saving = false;
    }
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
