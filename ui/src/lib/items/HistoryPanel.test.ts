import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import HistoryPanel from './HistoryPanel.svelte';
import type { RevisionInfo } from '../api/client';

afterEach(cleanup);

const rev = (n: number, author: string | null): RevisionInfo => ({
  rev: n, author, role: author ? 'annotator' : null, round: 1, created_at: '2026-11-30T10:00:00Z',
  op: n ? 'answer_correction' : null, tags: [], status: n ? 'edited' : 'todo', note: null, suggestion: null,
});

describe('HistoryPanel', () => {
  it('lists revisions newest first with authors and restores older ones', async () => {
    const onRestore = vi.fn();
    const { getAllByTestId, getAllByText } = render(HistoryPanel, { history: [rev(0, null), rev(1, 'aiko'), rev(2, 'minjun')], current: 2, onRestore });
    expect(getAllByTestId('history-author').map((e) => e.textContent?.split('(')[0].trim())).toEqual(['minjun', 'aiko', 'import']);
    const buttons = getAllByText('restore');
    expect(buttons.length).toBe(2);
    await fireEvent.click(buttons[1]);
    expect(onRestore).toHaveBeenCalledWith(0);
  });
});
