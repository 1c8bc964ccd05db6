import { afterEach, describe, expect, it } from 'vitest';
import { mockIPC, clearMocks } from '@tauri-apps/api/mocks';
import { loadDraft, recoverDrafts, saveDraft } from './drafts';
import type { ItemContent } from '../api/client';

afterEach(() => {
  clearMocks();
  localStorage.clear();
});

const content = (answer: string): ItemContent => ({ answer_format: 'short_answer', question: '3月の降水量は？', answer });

describe('recoverDrafts', () => {
  it('saves drafts typed over the current revision and keeps stale ones for the conflict view', async () => {
    saveDraft('p.assay', 1, { content: content('117'), op: 'answer_correction', tags: [], status: 'todo', baseRev: 0 });
    saveDraft('p.assay', 2, { content: content('x'), op: null, tags: [], status: 'todo', baseRev: 0 });
    saveDraft('other.assay', 3, { content: content('y'), op: null, tags: [], status: 'todo', baseRev: 0 });
    const saves: unknown[] = [];
    mockIPC((cmd, args) => {
      const a = args as { id: number; edit?: unknown };
      if (cmd === 'item_detail') return { item: { id: a.id, rev: a.id === 1 ? 0 : 5 }, history: [] };
      if (cmd === 'save_item') {
        saves.push(a);
        return { item: { id: a.id, rev: 1 }, history: [] };
      }
      return null;
    });
    expect(await recoverDrafts('p.assay')).toEqual([1]);
    expect(saves).toHaveLength(1);
    expect((saves[0] as { edit: { content: ItemContent; status: string } }).edit.content.answer).toBe('117');
    expect((saves[0] as { edit: { status: string } }).edit.status).toBe('edited');
    expect(loadDraft('p.assay', 1)).toBeNull();
    // Item 2 moved on (rev 5) since its draft (rev 0): the draft stays, nothing is lost.
    expect(loadDraft('p.assay', 2)).not.toBeNull();
    expect((saves[0] as { edit: { base_rev: number } }).edit.base_rev).toBe(0);
    expect(loadDraft('other.assay', 3)).not.toBeNull();
  });
});
