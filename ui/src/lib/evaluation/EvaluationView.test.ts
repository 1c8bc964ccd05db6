import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';

// vi.mock is hoisted above the module's other statements, so what it uses is hoisted too.
const { calls, answer } = vi.hoisted(() => {
  const calls: Record<string, number> = {};
  // Past 20 calls an answer never comes: a view that reloads on its own answers stops there
  // (and fails below) instead of spinning the test's event loop forever.
  const answer = (name: string, value: unknown) => () => {
    calls[name] = (calls[name] ?? 0) + 1;
    return calls[name] > 20 ? new Promise(() => {}) : Promise.resolve(value);
  };
  return { calls, answer };
});
vi.mock('../api/client', () => ({
  api: {
    models: answer('models', []),
    templates: answer('templates', { saved: [{ name: 'mine', version: 2, format: 'short_answer', body: 'b', created_at: '' }], builtins: [], judges: [] }),
    evalStatus: answer('evalStatus', { running: false, form: null }),
    dashboard: answer('dashboard', {
      rows: [{
        dataset: 'refcoco', group: null, scorer: 'soft_match', scorer_label: 'soft match v2', source: 'live',
        items_before: 3, items_after: 3, accuracy_before: 0.5, accuracy_after: 0.6, delta: 0.1, rank_correlation: null,
        models: [{ model: 'm', before: 0.5, after: 0.6, rank_before: 1, rank_after: 1 }],
        unparsed_before: 0, unparsed_after: 0, hedged_before: 0, hedged_after: 0,
      }], operations: [], failure_tags: [], grounding_by_ref: [], grounding_by_size: [], distractors: [],
      markdown: '', csv: '', latex: '',
    }),
    stageTable: answer('stageTable', null),
    runList: answer('runList', []),
    estimateEval: answer('estimateEval', null),
    suggestionReport: answer('suggestionReport', null),
  },
  asApiError: (e: { code: string; message: string }) => e,
}));

import EvaluationView from './EvaluationView.svelte';

beforeEach(() => {
  vi.useFakeTimers();
  for (const k of Object.keys(calls)) delete calls[k];
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Evaluation view', () => {
  it('loads once when shown and then polls on its timer, not on its own answers', async () => {
    render(EvaluationView, { datasets: [], visible: true, onRunFinished: vi.fn(), onOpenItem: vi.fn() });
    // Every answer settles well before the first tick of the 400 ms poll.
    await vi.advanceTimersByTimeAsync(300);
    expect(calls.evalStatus).toBe(1);
    expect(calls.dashboard).toBe(1);
    expect(calls.models).toBe(1);
    await vi.advanceTimersByTimeAsync(400);
    expect(calls.evalStatus).toBe(2);
    expect(calls.dashboard).toBe(1);
  });
});

describe('Evaluation view with nothing run yet', () => {
  it('says what would fill each empty chart and sets up the run that would', async () => {
    const { getByTestId } = render(EvaluationView, {
      datasets: [{ id: 1, name: 'refcoco', layout: 'jsonl', source_path: null, imported_at: '', item_count: 3 }], visible: true, onRunFinished: vi.fn(), onOpenItem: vi.fn(),
    });
    await vi.advanceTimersByTimeAsync(50);
    expect(getByTestId('empty-grounding').textContent).toContain('grounding scorer');
    expect(getByTestId('empty-distractors').textContent).toContain('multiple-choice');
    expect(getByTestId('empty-rank-change').textContent).toContain('two or more models');
    expect(getByTestId('empty-operations').textContent).toContain('operation');
    await fireEvent.click(getByTestId('empty-grounding-action'));
    expect((getByTestId('run-scorer-select') as HTMLSelectElement).value).toBe('grounding');
    expect((getByTestId('run-dataset-refcoco') as HTMLInputElement).checked).toBe(true);
  });
});
