import { afterEach, describe, expect, it } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { Editor } from './editor.svelte';
import { loadDraft, saveDraft } from './drafts';
import type { ItemContent } from '../api/client';

afterEach(() => {
  clearMocks();
  localStorage.clear();
});

const content = (question: string, answer: string): ItemContent => ({ answer_format: 'short_answer', question, answer });

function detail(rev: number, question: string, answer: string, author = 'minjun') {
  return {
    item: { id: 7, rev, op: null, tags: [], status: 'edited', content: content(question, answer), original: content('q', 'a') },
    history: [{ rev, author }],
  };
}

describe('Editor conflicts', () => {
  it('keeps typed text when someone else saved first and saves the chosen combination over their revision', async () => {
    // The window opened revision 0; meanwhile minjun saved revision 1 (a new question).
    let current = detail(0, '3月の降水量は？', '171');
    const saves: { base_rev: number | null; content: ItemContent }[] = [];
    mockIPC((cmd, args) => {
      const a = args as { edit?: { base_rev: number | null; content: ItemContent } };
      if (cmd === 'item_detail') return current;
      if (cmd === 'save_item') {
        const edit = a.edit!;
        if (edit.base_rev !== current.item.rev) throw { code: 'conflict', message: 'item 7 changed since you started editing' };
        saves.push(edit);
        current = detail(current.item.rev + 1, edit.content.question, edit.content.answer ?? '', 'aiko');
        return current;
      }
      return null;
    });
    const ed = new Editor('p.assay', () => {});
    await ed.load(7);
    current = detail(1, '3月の降水量は何mmですか？', '171');
    ed.work!.content.answer = '117';
    ed.changed();
    await ed.flush();
    expect(ed.conflict).not.toBeNull();
    expect(saves).toHaveLength(0);
    expect(loadDraft('p.assay', 7)?.content.answer).toBe('117');
    // Keep my answer, take their question.
    await ed.resolve({ question: 'theirs', answer: 'mine' });
    expect(ed.conflict).toBeNull();
    expect(saves).toHaveLength(1);
    expect(saves[0].base_rev).toBe(1);
    expect(saves[0].content.question).toBe('3月の降水量は何mmですか？');
    expect(saves[0].content.answer).toBe('117');
    expect(loadDraft('p.assay', 7)).toBeNull();
  });

  it('shows a draft typed over a superseded revision as a conflict instead of dropping it', async () => {
    saveDraft('p.assay', 7, { content: content('q', 'mine'), op: null, tags: [], status: 'edited', baseRev: 0 });
    mockIPC((cmd) => (cmd === 'item_detail' ? detail(3, 'q', 'theirs') : null));
    const ed = new Editor('p.assay', () => {});
    await ed.load(7);
    expect(ed.conflict?.theirs.content.answer).toBe('theirs');
    expect(ed.work?.content.answer).toBe('mine');
  });
});
