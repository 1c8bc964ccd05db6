// Box metrics for live display while drawing. The stored, filterable values are computed by
// assay-core (grounding/metrics.rs); both implementations are checked against the same
// reference file, tests/fixtures/grounding/metrics.json, made by an independent script.
import type { BBox } from '../api/client';

export type BoxMetrics = { size_ratio: number; center_distance: number; saliency: number };

export function boxMetrics(b: BBox, width: number, height: number, crowdedness: number | null | undefined): BoxMetrics {
  const area = width * height;
  const size_ratio = area > 0 ? Math.min(1, Math.max(0, ((b.x_max - b.x_min) * (b.y_max - b.y_min)) / area)) : 0;
  let center_distance = 0;
  if (width > 0 && height > 0) {
    // CRAG-MM-Diagnostics' calculate_distance: pixels to the centre over half the diagonal.
    const dx = width / 2 - (b.x_min + b.x_max) / 2;
    const dy = height / 2 - (b.y_min + b.y_max) / 2;
    center_distance = Math.hypot(dx, dy) / (Math.hypot(width, height) / 2);
  }
  const parts = [Math.sqrt(size_ratio), 1 - Math.min(1, center_distance)];
  if (crowdedness !== null && crowdedness !== undefined) parts.push(1 / (1 + crowdedness));
  return { size_ratio, center_distance, saliency: parts.reduce((a, b) => a + b, 0) / parts.length };
}
