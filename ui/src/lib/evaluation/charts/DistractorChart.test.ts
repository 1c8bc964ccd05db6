import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import DistractorChart from './DistractorChart.svelte';

afterEach(cleanup);

describe('Distractor chart', () => {
  it('draws shares over the readable replies only and lists the others apart, as VAGUE counts them', () => {
    const share = (model: string, group: string, n: number) => ({ model, group, hits: n, n });
    const { getByTestId } = render(DistractorChart, {
      distractors: [share('m', 'correct', 6), share('m', 'FSU', 2), share('m', 'unparsed', 3), share('m', 'hedged', 1)],
    });
    expect(getByTestId('distractor-invalid').textContent).toContain('m 1 hedged, 3 unparsed of 12 replies');
    const legend = getByTestId('distractor-chart').textContent ?? '';
    expect(legend).toContain('FSU');
    expect(legend).not.toContain('unparsed');
  });
});
