// Which rows of a virtual list to render, and which pages to fetch for them.

export type RowWindow = { first: number; last: number; padTop: number; padBottom: number };

export function rowWindow(scrollTop: number, viewport: number, rowHeight: number, total: number, overscan = 8): RowWindow {
  if (total <= 0) return { first: 0, last: -1, padTop: 0, padBottom: 0 };
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(total - 1, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, last, padTop: first * rowHeight, padBottom: (total - 1 - last) * rowHeight };
}

export function pagesFor(first: number, last: number, pageSize: number): number[] {
  if (last < first) return [];
  const out: number[] = [];
  for (let p = Math.floor(first / pageSize); p <= Math.floor(last / pageSize); p++) out.push(p);
  return out;
}
