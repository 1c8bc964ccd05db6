// Which rows of a virtual list to render, and which pages to fetch for them.
//
// A browser cannot make an element taller than about 33 million pixels (WebKit and Chromium
// store layout positions as 1/64 px in 32 bits), and a million 64-pixel rows need 64 million:
// past `MAX_PX` the scroll content stays `MAX_PX` tall and a scroll position stands for a
// proportional position in the list, so the bottom of the scrollbar still reaches the last row.

/** The tallest scroll content drawn; well inside every engine's limit. */
export const MAX_PX = 8_000_000;

export type ScaledWindow = {
  first: number;
  last: number;
  /** Where row `first` is drawn inside the scroll content. */
  offset: number;
  /** The scroll content's height. */
  height: number;
  /** The list position shown at the top of the viewport, in pixels over all rows. */
  virtualTop: number;
  scaled: boolean;
  /** The spacers around the drawn rows: above (with `lift`, a negative margin, when row
   * `first` starts above the content's top, near the top of a scaled list) and below. */
  above: number;
  lift: number;
  below: number;
};

function fullHeight(row: number, total: number): number {
  return Math.max(0, total) * row;
}

/** The list position (pixels over all rows) that the scroll position `scrollTop` shows. */
export function virtualFrom(scrollTop: number, viewport: number, row: number, total: number, maxPx = MAX_PX): number {
  const full = fullHeight(row, total);
  if (full <= maxPx) return scrollTop;
  const v = (scrollTop * (full - viewport)) / Math.max(1, maxPx - viewport);
  return Math.max(0, Math.min(v, full - viewport));
}

/** The scroll position that shows the list position `virtualTop`: the inverse of
 * [`virtualFrom`]. */
export function scrollTopFor(virtualTop: number, viewport: number, row: number, total: number, maxPx = MAX_PX): number {
  const full = fullHeight(row, total);
  if (full <= maxPx) return virtualTop;
  return (virtualTop * Math.max(1, maxPx - viewport)) / Math.max(1, full - viewport);
}

/** The rows to draw. `virtualTop` is the list position shown (by default the one `scrollTop`
 * stands for; the wheel keeps its own, finer than a scaled scroll position can say). */
export function scaledWindow(
  scrollTop: number,
  viewport: number,
  row: number,
  total: number,
  maxPx = MAX_PX,
  overscan = 6,
  virtualTop = virtualFrom(scrollTop, viewport, row, total, maxPx),
): ScaledWindow {
  const full = fullHeight(row, total);
  const height = Math.min(full, maxPx);
  const scaled = full > maxPx;
  const v = scaled ? Math.max(0, Math.min(virtualTop, full - viewport)) : scrollTop;
  const first = Math.max(0, Math.floor(v / row) - overscan);
  const last = total > 0 ? Math.min(total - 1, Math.ceil((v + viewport) / row) + overscan) : -1;
  const offset = scaled ? scrollTop + (first * row - v) : first * row;
  const drawn = Math.max(0, last - first + 1) * row;
  return {
    first, last, offset, height, virtualTop: v, scaled,
    above: Math.max(0, offset), lift: Math.min(0, offset), below: Math.max(0, height - offset - drawn),
  };
}

export function pagesFor(first: number, last: number, pageSize: number): number[] {
  if (last < first) return [];
  const out: number[] = [];
  for (let p = Math.floor(first / pageSize); p <= Math.floor(last / pageSize); p++) out.push(p);
  return out;
}
