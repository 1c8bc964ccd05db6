import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';

const bulkEdit = vi.fn();
const undoBulk = vi.fn();
vi.mock('../api/client', () => ({
  api: { bulkEdit: (...a: unknown[]) => bulkEdit(...a), undoBulk: (...a: unknown[]) => undoBulk(...a), exportSelection: vi.fn() },
  asApiError: (e: { code: string; message: string }) => e,
}));

import BulkBar from './BulkBar.svelte';
import { Browse } from './browse.svelte';

afterEach(cleanup);

function picked(ids: number[]): Browse {
  const b = new Browse();
  b.total = 10;
  for (const id of ids) b.picked.add(id);
  return b;
}

describe('Bulk bar', () => {
  it('sends the picked items as one selection and offers the undo of what it did', async () => {
    bulkEdit.mockResolvedValueOnce({ action_id: 7, label: 'status flagged on 3 items', changed: 2, unchanged: 0, skipped: 1, skipped_reasons: [[5, 'item 5 is signed off']] });
    undoBulk.mockResolvedValueOnce({ action_id: 8, label: 'undo: status flagged on 3 items', changed: 2, unchanged: 0, skipped: 0, skipped_reasons: [] });
    const onChanged = vi.fn();
    const { getByTestId, findByTestId, queryByTestId } = render(BulkBar, { browse: picked([3, 4, 5]), stages: [], onChanged, onAssign: vi.fn() });
    expect(getByTestId('bulk-count').textContent).toBe('3 selected');
    await fireEvent.click(getByTestId('bulk-flag'));
    const [target, change] = bulkEdit.mock.calls[0];
    expect([...target.ids].sort()).toEqual([3, 4, 5]);
    expect(change.status).toBe('flagged');
    expect((await findByTestId('bulk-result')).textContent).toContain('1 refused');
    expect(onChanged).toHaveBeenCalledTimes(1);
    await fireEvent.click(getByTestId('bulk-undo'));
    expect(undoBulk).toHaveBeenCalledWith(7);
    await vi.waitFor(() => expect(getByTestId('bulk-result').textContent).toContain('undo:'));
    expect(queryByTestId('bulk-undo')).toBeNull();
  });

  it('shows a refused action with its message, not as nothing happening', async () => {
    bulkEdit.mockRejectedValueOnce({ code: 'forbidden', message: 'approval is a review of one revision at a time' });
    const { getByTestId, findByTestId } = render(BulkBar, { browse: picked([1]), stages: [], onChanged: vi.fn(), onAssign: vi.fn() });
    await fireEvent.click(getByTestId('bulk-flag'));
    expect((await findByTestId('bulk-error')).textContent).toContain('approval is a review');
  });
});
