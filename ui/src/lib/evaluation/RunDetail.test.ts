import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';

const runDetail = vi.fn();
vi.mock('../api/client', () => ({
  api: { runDetail: (...a: unknown[]) => runDetail(...a) },
  asApiError: (e: { code: string; message: string }) => e,
}));

import RunDetail from './RunDetail.svelte';

afterEach(cleanup);

const row = {
  run: { id: 4, model: 'm', dataset: 'd', version: 'after', variant: 'original', run_index: 1, template: 'default', scorer: 'auto', source: 'live', status: 'complete', protocol: null },
  scorer_label: 'auto v2', items: 2, unparsed: 0, hedged: 0, unsure: 0, errors: 0, accuracy: 0.5, sent: 2, prompt_tokens: 0, completion_tokens: 0,
  cost: null, duration_secs: 1, no_rescore: null, replicas: [],
};

describe('Run detail', () => {
  it('lists a run\'s results and marks the stale ones', async () => {
    runDetail.mockResolvedValueOnce({ run_id: 4, total: 2, lines: [
      { item_id: 1, dataset: 'd', ext_id: 'a', outcome: 'scored', score: 1, parsed: 'x', error: null, from_cache: false, stale: false },
      { item_id: 2, dataset: 'd', ext_id: 'b', outcome: 'scored', score: 0, parsed: 'y', error: null, from_cache: true, stale: true },
    ] });
    const { findAllByTestId, getByText } = render(RunDetail, { row, onOpenItem: vi.fn(), onClose: vi.fn() });
    expect(await findAllByTestId('run-detail-line')).toHaveLength(2);
    expect(getByText('stale')).toBeTruthy();
    expect(runDetail).toHaveBeenCalledWith(4, null, 0, 50);
  });

  it('shows a failed read, not an empty run', async () => {
    runDetail.mockRejectedValueOnce({ code: 'not_found', message: 'run 4' });
    const { findByRole, queryAllByTestId } = render(RunDetail, { row, onOpenItem: vi.fn(), onClose: vi.fn() });
    expect((await findByRole('alert')).textContent).toContain('run 4');
    expect(queryAllByTestId('run-detail-line')).toHaveLength(0);
  });
});
