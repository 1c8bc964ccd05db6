import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import WorkPanel from './WorkPanel.svelte';

afterEach(cleanup);

describe('My work', () => {
  it('shows a failed call with its code and a retry, never "nothing to review"', async () => {
    const onRetry = vi.fn();
    const { getByTestId, queryByText } = render(WorkPanel, {
      work: null, error: { code: 'sqlite', message: 'database is locked' }, current: null,
      onOpen: vi.fn(), onClose: vi.fn(), onRetry,
    });
    expect(getByTestId('load-error').textContent).toContain('database is locked');
    expect(getByTestId('load-error-code').textContent).toBe('sqlite');
    expect(queryByText(/Nothing: items others edited/)).toBeNull();
    await fireEvent.click(getByTestId('load-error-retry'));
    expect(onRetry).toHaveBeenCalledOnce();
  });

  it('lists blind rounds and items to adjudicate when the call worked', () => {
    const entry = { item_id: 7, dataset: 'jgraph-mini', ext_id: 'jg-007', status: 'todo', done: false };
    const { getByTestId, queryByTestId, getByText } = render(WorkPanel, {
      work: { review: [], sent_back: [], mentions: [], adjudicate: [entry], rounds: [{ id: 1, name: 'blind 1', purpose: 'annotate', blind: true, done: 0, entries: [entry] }] },
      current: null, onOpen: vi.fn(), onClose: vi.fn(),
    });
    expect(queryByTestId('load-error')).toBeNull();
    expect(getByTestId('adjudicate-item').textContent).toContain('jg-007');
    expect(getByText(/blind: record your judgement/)).toBeTruthy();
  });
});
