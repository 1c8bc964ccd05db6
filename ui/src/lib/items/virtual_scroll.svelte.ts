// The scroll state of a virtual list, shared by the item list and the item table.

import { untrack } from 'svelte';
import type { Browse } from './browse.svelte';
import { MAX_PX, scaledWindow, scrollTopFor, virtualFrom, type ScaledWindow } from './window';

type Scrollable = { scrollTop: number; scrollLeft: number };

/** Scrolling over rows of a fixed height, however many. When the list is taller than a browser
 * can draw, the scrollbar is scaled (see `window.ts`); the wheel and the keyboard's moves
 * still go row by row, because they move the list position itself and place the scrollbar
 * after it, instead of moving a scaled scrollbar `k` times too far. */
export class VirtualScroll {
  scrollTop = $state(0);
  /** The viewport's height (bound to its clientHeight). */
  height = $state(600);
  /** The list position at the top of the viewport, in pixels over all rows. */
  virtualTop = $state(0);
  /** The scroll position we set last: its scroll event must not move `virtualTop` back to the
   * coarser position a scaled scrollbar can hold. */
  private expected: number | null = null;
  readonly row: number;
  private readonly total: () => number;
  readonly maxPx: number;

  constructor(row: number, total: () => number, maxPx = MAX_PX) {
    this.row = row;
    this.total = total;
    this.maxPx = maxPx;
  }

  get window(): ScaledWindow {
    return scaledWindow(this.scrollTop, this.height, this.row, this.total(), this.maxPx, 6, this.virtualTop);
  }

  /** The list's scroll event: a move we did not make (scrollbar, keys the browser handles). */
  onScroll(el: Scrollable) {
    const st = el.scrollTop;
    this.scrollTop = st;
    const ours = this.expected !== null && Math.abs(st - this.expected) <= 1;
    this.expected = null;
    if (ours) return;
    this.virtualTop = virtualFrom(st, this.height, this.row, this.total(), this.maxPx);
  }

  /** Moves the list position by `dy` pixels of rows. */
  scrollBy(el: Scrollable, dy: number) {
    this.moveTo(el, this.window.virtualTop + dy);
  }

  /** The wheel over a scaled list: the list moves by the wheel's pixels, not `k` times them. */
  onWheel(el: Scrollable, e: WheelEvent) {
    if (!this.window.scaled || e.ctrlKey) return;
    e.preventDefault();
    const unit = e.deltaMode === 1 ? this.row : e.deltaMode === 2 ? this.height : 1;
    // Shift turns a plain wheel sideways (the table is wider than its pane).
    const [dx, dy] = e.shiftKey && !e.deltaX ? [e.deltaY, 0] : [e.deltaX, e.deltaY];
    if (dx) el.scrollLeft += dx * unit;
    if (dy) this.scrollBy(el, dy * unit);
  }

  /** Listens to the wheel over `el` (not passive: a scaled list takes the wheel's move over);
   * returns the cleanup, for an `$effect`. */
  attach(el: HTMLElement): () => void {
    const wheel = (e: WheelEvent) => this.onWheel(el, e);
    el.addEventListener('wheel', wheel, { passive: false });
    return () => el.removeEventListener('wheel', wheel);
  }

  /** Scrolls just enough that row `i` is wholly in view. */
  show(el: Scrollable, i: number) {
    // A hidden view measures 0 high: no position shows a row wholly, so none is sought.
    if (this.height < this.row) return;
    const v = this.window.virtualTop;
    const top = i * this.row;
    if (top < v) this.moveTo(el, top);
    else if (top + this.row > v + this.height) this.moveTo(el, top + this.row - this.height);
  }

  /** Back to the first row (a new filter). */
  reset(el: Scrollable | undefined) {
    this.virtualTop = 0;
    this.scrollTop = 0;
    this.expected = null;
    if (el) el.scrollTop = 0;
  }

  private moveTo(el: Scrollable, virtualTop: number) {
    const full = this.total() * this.row;
    const v = Math.max(0, Math.min(virtualTop, Math.max(0, full - this.height)));
    this.virtualTop = v;
    el.scrollTop = scrollTopFor(v, this.height, this.row, this.total(), this.maxPx);
    // The browser may round what it was given; the rows are placed against what it holds.
    this.scrollTop = el.scrollTop;
    this.expected = el.scrollTop;
  }
}

/** Ties a view's scroll to the browse state, as the list and the table both do (call during the
 * component's setup): the rows in view are fetched, the wheel is taken over, a new selection
 * (J/K) is scrolled into view, and a new filter starts at the top. */
export function followBrowse(scroll: VirtualScroll, getBrowse: () => Browse, viewport: () => HTMLElement | undefined) {
  $effect(() => {
    const browse = getBrowse();
    // Rows replaced whole (a refresh, a page dropped) are fetched again when in view.
    void browse.rows;
    const w = scroll.window;
    browse.showRows(w.first, w.last);
  });
  $effect(() => {
    const el = viewport();
    return el ? scroll.attach(el) : undefined;
  });
  $effect(() => {
    const browse = getBrowse();
    const sel = browse.selected;
    const el = viewport();
    if (sel === null || !el) return;
    // Only a new selection moves the list: reading the scroll state here would pull the list
    // back to the open item at every scroll.
    untrack(() => {
      const i = browse.indexOf(sel);
      if (i >= 0) scroll.show(el, i);
    });
  });
  $effect(() => {
    void getBrowse().filter;
    scroll.reset(viewport());
  });
}
