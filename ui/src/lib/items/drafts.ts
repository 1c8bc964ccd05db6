// Typed text is kept in localStorage until it is saved, so a crash or a closed window loses
// nothing: the next start finds the draft and saves it.
import { api } from '../api/client';
import type { Edit, ItemContent, IssueTag, ItemStatus, RefinementOp } from '../api/client';

export type Draft = {
  content: ItemContent;
  op: RefinementOp | null;
  tags: IssueTag[];
  status: ItemStatus;
  /** The revision the draft was typed over. */
  baseRev: number;
};

/** The edit that saves a working state: anything touched is "edited" unless a status was set. */
export function editOf(
  s: { content: ItemContent; op: RefinementOp | null; tags: IssueTag[]; status: ItemStatus },
  note: string | null = null,
  baseRev: number | null = null,
): Edit {
  return { base_rev: baseRev, content: s.content, op: s.op, tags: s.tags, status: s.status === 'todo' ? 'edited' : s.status, note };
}

function key(project: string, item: number): string {
  return `assay:draft:${project}:${item}`;
}

export function saveDraft(project: string, item: number, d: Draft): void {
  try {
    localStorage.setItem(key(project, item), JSON.stringify(d));
  } catch {
    // Storage full or unavailable: the debounced save still runs.
  }
}

export function loadDraft(project: string, item: number): Draft | null {
  try {
    const raw = localStorage.getItem(key(project, item));
    return raw ? (JSON.parse(raw) as Draft) : null;
  } catch {
    return null;
  }
}

export function clearDraft(project: string, item: number): void {
  try {
    localStorage.removeItem(key(project, item));
  } catch {
    // ignore
  }
}

/** Items with unsaved drafts in this project. */
export function pendingDrafts(project: string): number[] {
  const prefix = `assay:draft:${project}:`;
  const out: number[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(prefix)) out.push(Number(k.slice(prefix.length)));
  }
  return out;
}

/**
 * Saves every draft a crash or a closed window left behind in this project, when the item has
 * not changed since the draft was typed. A draft typed over a revision that has been
 * superseded is kept: opening the item shows it beside the other change (a conflict), so no
 * typed text is lost. Returns the ids saved.
 */
export async function recoverDrafts(project: string): Promise<number[]> {
  const saved: number[] = [];
  for (const id of pendingDrafts(project)) {
    const d = loadDraft(project, id);
    if (!d) continue;
    try {
      const cur = await api.itemDetail(id);
      if (cur.item.rev === d.baseRev) {
        await api.saveItem(id, editOf(d, 'recovered draft', d.baseRev));
        saved.push(id);
        clearDraft(project, id);
      }
    } catch {
      // Keep the draft for the next start if the item cannot be read or saved now.
    }
  }
  return saved;
}
