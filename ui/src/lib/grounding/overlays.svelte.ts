// Boxes models predicted for the open item (from stored grounding runs), drawn over the image
// beside the reference boxes. Set by the item's runs panel, read by the canvas.
import type { BBox } from '../api/client';

export type PredictedBox = { image: number; box: BBox; label: string; iou: number; hit: boolean };

export const overlays = $state<{ show: boolean; boxes: PredictedBox[] }>({ show: true, boxes: [] });

/** The predicted box of one grounding result's evidence, if it has one. */
export function predictedOf(evidence: string | null | undefined, label: string): PredictedBox | null {
  try {
    const ev = JSON.parse(evidence ?? '{}');
    const p = ev.predicted_px;
    if (!Array.isArray(p) || p.length !== 4) return null;
    const iou = Number(ev.iou);
    return { image: Number(ev.image_index ?? 0), box: { x_min: p[0], y_min: p[1], x_max: p[2], y_max: p[3] }, label, iou, hit: iou >= 0.5 };
  } catch {
    return null;
  }
}
