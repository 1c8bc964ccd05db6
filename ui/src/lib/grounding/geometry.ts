// The canvas's arithmetic, kept free of the DOM so it is unit-tested: the view transform
// (screen = image * scale + offset), hit-testing boxes and handles, and box edits. Boxes are
// always in the original image's pixels.
import type { BBox } from '../api/client';

export type View = { scale: number; tx: number; ty: number };
export type Point = { x: number; y: number };
export type Handle = 'move' | 'nw' | 'n' | 'ne' | 'e' | 'se' | 's' | 'sw' | 'w';

export const MIN_SCALE = 0.02;
export const MAX_SCALE = 16;
/** Boxes smaller than this (image pixels, either side) are a click, not a box. */
export const MIN_SIDE = 2;

export function toImage(v: View, p: Point): Point {
  return { x: (p.x - v.tx) / v.scale, y: (p.y - v.ty) / v.scale };
}

export function toScreen(v: View, p: Point): Point {
  return { x: p.x * v.scale + v.tx, y: p.y * v.scale + v.ty };
}

/** The whole image centred in a viewport of `vw` x `vh`, with a small margin. */
export function fit(iw: number, ih: number, vw: number, vh: number, margin = 8): View {
  const scale = clampScale(Math.min((vw - 2 * margin) / iw, (vh - 2 * margin) / ih));
  return { scale, tx: (vw - iw * scale) / 2, ty: (vh - ih * scale) / 2 };
}

/** 1:1, centred on the viewport's centre of the current view. */
export function actualSize(v: View, vw: number, vh: number): View {
  return zoomAt(v, 1 / v.scale, { x: vw / 2, y: vh / 2 });
}

export function clampScale(s: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));
}

/** Zooms by `factor` keeping the image point under screen point `at` where it is. */
export function zoomAt(v: View, factor: number, at: Point): View {
  const scale = clampScale(v.scale * factor);
  const k = scale / v.scale;
  return { scale, tx: at.x - (at.x - v.tx) * k, ty: at.y - (at.y - v.ty) * k };
}

/** The box filling most of the viewport, centred. */
export function zoomToBox(b: BBox, vw: number, vh: number, fill = 0.6): View {
  const w = Math.max(b.x_max - b.x_min, 1);
  const h = Math.max(b.y_max - b.y_min, 1);
  const scale = clampScale(Math.min((vw * fill) / w, (vh * fill) / h));
  const cx = (b.x_min + b.x_max) / 2;
  const cy = (b.y_min + b.y_max) / 2;
  return { scale, tx: vw / 2 - cx * scale, ty: vh / 2 - cy * scale };
}

export function pan(v: View, dx: number, dy: number): View {
  return { ...v, tx: v.tx + dx, ty: v.ty + dy };
}

/** A box from two corners in any order, clamped to the image and rounded to whole pixels. */
export function boxFrom(a: Point, b: Point, iw: number, ih: number): BBox {
  const cl = (v: number, hi: number) => Math.round(Math.min(hi, Math.max(0, v)));
  return {
    x_min: cl(Math.min(a.x, b.x), iw),
    y_min: cl(Math.min(a.y, b.y), ih),
    x_max: cl(Math.max(a.x, b.x), iw),
    y_max: cl(Math.max(a.y, b.y), ih),
  };
}

export function isBox(b: BBox): boolean {
  return b.x_max - b.x_min >= MIN_SIDE && b.y_max - b.y_min >= MIN_SIDE;
}

function handlePoints(b: BBox): [Handle, Point][] {
  const cx = (b.x_min + b.x_max) / 2;
  const cy = (b.y_min + b.y_max) / 2;
  return [
    ['nw', { x: b.x_min, y: b.y_min }],
    ['n', { x: cx, y: b.y_min }],
    ['ne', { x: b.x_max, y: b.y_min }],
    ['e', { x: b.x_max, y: cy }],
    ['se', { x: b.x_max, y: b.y_max }],
    ['s', { x: cx, y: b.y_max }],
    ['sw', { x: b.x_min, y: b.y_max }],
    ['w', { x: b.x_min, y: cy }],
  ];
}

export function handles(b: BBox): [Handle, Point][] {
  return handlePoints(b);
}

/**
 * What is under image point `p`: a handle of the selected box first (within `tol` image
 * pixels), then the smallest box containing the point (so a small box inside a big one can
 * still be picked). Null when nothing is.
 */
export function hitTest(boxes: BBox[], selected: number | null, p: Point, tol: number): { index: number; handle: Handle } | null {
  if (selected !== null && boxes[selected]) {
    for (const [h, q] of handlePoints(boxes[selected])) {
      if (Math.abs(q.x - p.x) <= tol && Math.abs(q.y - p.y) <= tol) return { index: selected, handle: h };
    }
  }
  let best: { index: number; area: number } | null = null;
  boxes.forEach((b, i) => {
    if (p.x >= b.x_min - tol && p.x <= b.x_max + tol && p.y >= b.y_min - tol && p.y <= b.y_max + tol) {
      const area = (b.x_max - b.x_min) * (b.y_max - b.y_min);
      if (!best || area < best.area) best = { index: i, area };
    }
  });
  return best ? { index: (best as { index: number }).index, handle: 'move' } : null;
}

/** `b` dragged by (dx, dy) image pixels at `handle`, kept inside the image, whole pixels. */
export function drag(b: BBox, handle: Handle, dx: number, dy: number, iw: number, ih: number): BBox {
  if (handle === 'move') return nudge(b, dx, dy, iw, ih);
  let { x_min, y_min, x_max, y_max } = b;
  if (handle.includes('w')) x_min += dx;
  if (handle.includes('e')) x_max += dx;
  if (handle.includes('n')) y_min += dy;
  if (handle.includes('s')) y_max += dy;
  return boxFrom({ x: x_min, y: y_min }, { x: x_max, y: y_max }, iw, ih);
}

/** `b` moved by (dx, dy), stopped at the image's edges without changing its size. */
export function nudge(b: BBox, dx: number, dy: number, iw: number, ih: number): BBox {
  const w = b.x_max - b.x_min;
  const h = b.y_max - b.y_min;
  const x = Math.round(Math.min(Math.max(b.x_min + dx, 0), Math.max(iw - w, 0)));
  const y = Math.round(Math.min(Math.max(b.y_min + dy, 0), Math.max(ih - h, 0)));
  return { x_min: x, y_min: y, x_max: x + w, y_max: y + h };
}

export function center(b: BBox): Point {
  return { x: (b.x_min + b.x_max) / 2, y: (b.y_min + b.y_max) / 2 };
}

/** The next free "personN" label. */
export function nextPersonLabel(labels: (string | null | undefined)[]): string {
  const used = new Set(labels.map((l) => Number(/^person(\d+)$/.exec(l ?? '')?.[1] ?? NaN)).filter((n) => !Number.isNaN(n)));
  let n = 1;
  while (used.has(n)) n++;
  return `person${n}`;
}
