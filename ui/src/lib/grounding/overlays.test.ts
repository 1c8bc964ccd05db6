import { describe, expect, it } from 'vitest';
import { predictedOf } from './overlays.svelte';

describe('predicted boxes from evidence', () => {
  it('reads the box in original pixels and whether it hit', () => {
    const ev = JSON.stringify({ predicted_px: [10, 20, 110, 220], image_index: 0, iou: 0.62 });
    expect(predictedOf(ev, 'qwen')).toEqual({ image: 0, box: { x_min: 10, y_min: 20, x_max: 110, y_max: 220 }, label: 'qwen', iou: 0.62, hit: true });
    expect(predictedOf('{"rule": "no box found in response"}', 'qwen')).toBeNull();
    expect(predictedOf('not json', 'qwen')).toBeNull();
  });
});
