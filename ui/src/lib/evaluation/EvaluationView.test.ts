import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';

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
    evalStatus: answer('evalStatus', { running: false, form: null }),
    dashboard: answer('dashboard', null),
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
