import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import FailureBar from './FailureBar.svelte';
import { failures, report } from './failures.svelte';

afterEach(() => {
  cleanup();
  failures.items = [];
});

describe('the failure bar', () => {
  it('shows what failed with its code, and retries the call', async () => {
    const retry = vi.fn();
    report('Loading the review queue', { code: 'sqlite', message: 'database is locked' }, retry);
    const { getByTestId, queryByTestId } = render(FailureBar);
    expect(getByTestId('failure').textContent).toContain('Loading the review queue failed');
    expect(getByTestId('failure-code').textContent).toBe('sqlite');
    await fireEvent.click(getByTestId('failure-retry'));
    expect(retry).toHaveBeenCalledOnce();
    expect(queryByTestId('failure')).toBeNull();
  });
});
