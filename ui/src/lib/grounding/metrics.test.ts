import { describe, expect, it } from 'vitest';
import reference from '../../../../tests/fixtures/grounding/metrics.json';
import { boxMetrics } from './metrics';

describe('box metrics', () => {
  it('match the independent reference values', () => {
    for (const r of reference) {
      const [x_min, y_min, x_max, y_max] = r.box;
      const m = boxMetrics({ x_min, y_min, x_max, y_max }, r.width, r.height, r.crowdedness);
      expect(m.size_ratio).toBeCloseTo(r.size_ratio, 12);
      expect(m.center_distance).toBeCloseTo(r.center_distance, 12);
      expect(m.saliency).toBeCloseTo(r.saliency, 12);
    }
  });
});
