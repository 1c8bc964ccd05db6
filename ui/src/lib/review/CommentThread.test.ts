import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, waitFor } from '@testing-library/svelte';

const comments = vi.fn();
vi.mock('../api/client', () => ({
  api: { comments: (id: number) => comments(id), addComment: vi.fn() },
  asApiError: (e: { code: string; message: string }) => e,
}));

import CommentThread from './CommentThread.svelte';

afterEach(cleanup);

describe('Comments', () => {
  it('shows a failed read with its code and retries it, instead of an empty thread', async () => {
    comments.mockReturnValueOnce(Promise.reject({ code: 'sqlite', message: 'disk I/O error' }));
    const { getByTestId, findByTestId, queryByTestId } = render(CommentThread, { itemId: 3, rev: 1 });
    expect((await findByTestId('load-error')).textContent).toContain('disk I/O error');
    expect(getByTestId('load-error-code').textContent).toBe('sqlite');
    comments.mockReturnValueOnce(Promise.resolve([{ id: 1, item_id: 3, rev: 1, body: 'ok now', author: 'aiko', created_at: '2026-12-01T10:00:00Z', mentions: [] }]));
    await fireEvent.click(getByTestId('load-error-retry'));
    await waitFor(() => expect(queryByTestId('load-error')).toBeNull());
    expect(getByTestId('comment').textContent).toContain('ok now');
  });
});
