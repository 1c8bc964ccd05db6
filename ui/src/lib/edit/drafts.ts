// Typed text is kept in localStorage until it is saved, so a crash or a closed window loses
// nothing: the next start finds the draft and saves it.
import type { ItemContent, IssueTag, ItemStatus, RefinementOp } from '../api/client';

export type Draft = {
  content: ItemContent;
  op: RefinementOp | null;
  tags: IssueTag[];
  status: ItemStatus;
  /** The revision the draft was typed over. */
  baseRev: number;
};

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
