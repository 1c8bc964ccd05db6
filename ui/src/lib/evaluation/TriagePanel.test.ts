import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import TriagePanel from './TriagePanel.svelte';

afterEach(cleanup);

describe('Triage', () => {
  it('shows a failed ranking as a failure, not as "no item stands out"', () => {
    const { getByTestId, queryByText } = render(TriagePanel, {
      entries: [], error: { code: 'not_found', message: 'no project is open' }, current: null,
      onOpen: vi.fn(), onClose: vi.fn(), onRetry: vi.fn(),
    });
    expect(getByTestId('load-error-code').textContent).toBe('not_found');
    expect(queryByText(/No item stands out/)).toBeNull();
  });
});
