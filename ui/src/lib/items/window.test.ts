import { describe, expect, it } from 'vitest';
import { pagesFor, scaledWindow, scrollTopFor, virtualFrom } from './window';
import { VirtualScroll } from './virtual_scroll.svelte';

describe('scaledWindow', () => {
  it('is a plain window while the list fits', () => {
    const w = scaledWindow(3200, 600, 32, 1000);
    expect(w.scaled).toBe(false);
    expect(w.height).toBe(32000);
    expect(w.first).toBe(100 - 6);
    expect(w.offset).toBe(w.first * 32);
    expect(w.last).toBeGreaterThanOrEqual(100 + 600 / 32);
  });

  it('scales a million rows into a height the browser can draw and reaches the last row', () => {
    const total = 1_000_000;
    const top = scaledWindow(0, 600, 32, total);
    expect(top.height).toBe(8_000_000);
    expect(top.first).toBe(0);
    const end = scaledWindow(8_000_000 - 600, 600, 32, total);
    expect(end.last).toBe(total - 1);
    // The block drawn covers the viewport.
    expect(end.offset).toBeLessThanOrEqual(8_000_000 - 600);
    expect(end.offset + (end.last - end.first + 1) * 32).toBeGreaterThanOrEqual(8_000_000);
    const mid = scaledWindow(4_000_000, 600, 32, total);
    expect(Math.abs(mid.first - total / 2)).toBeLessThan(40);
    expect(mid.offset).toBeLessThanOrEqual(4_000_000);
  });

  it('maps scroll positions and list positions both ways', () => {
    for (const [row, total] of [[64, 1_000_000], [32, 2_500_000], [64, 1000]]) {
      for (const v of [0, 12_345, row * total * 0.37, row * total - 600]) {
        const st = scrollTopFor(v, 600, row, total);
        expect(st).toBeLessThanOrEqual(8_000_000);
        expect(virtualFrom(st, 600, row, total)).toBeCloseTo(v, 3);
      }
    }
  });

  it('draws row `first` where the list position puts it, whatever the scroll position holds', () => {
    // A wheel move of 10 px at 1,000,000 rows of 64: the scrollbar can only say ~1.25 px.
    const w = scaledWindow(1000, 600, 64, 1_000_000, 8_000_000, 6, 8010);
    expect(w.virtualTop).toBe(8010);
    // Row 125 starts at 8000, 10 px above the viewport's top.
    expect(w.offset + (125 - w.first) * 64).toBe(1000 - 10);
  });

  it('has no rows for an empty list', () => {
    expect(scaledWindow(0, 600, 32, 0).last).toBe(-1);
  });

  it('lists the pages a window spans', () => {
    expect(pagesFor(190, 230, 100)).toEqual([1, 2]);
  });
});

/** An element as the browser holds it: whole-pixel scroll positions within the content. */
function element(contentHeight: number, viewport: number) {
  let top = 0;
  return {
    scrollLeft: 0,
    get scrollTop() {
      return top;
    },
    set scrollTop(v: number) {
      top = Math.round(Math.max(0, Math.min(v, contentHeight - viewport)));
    },
  };
}

function wheel(deltaY: number, deltaMode = 0): WheelEvent {
  return { deltaY, deltaX: 0, deltaMode, ctrlKey: false, preventDefault: () => {} } as unknown as WheelEvent;
}

describe('VirtualScroll', () => {
  it('moves a million-row list by exactly the wheel’s pixels, though the scrollbar is scaled', () => {
    const total = 1_000_000;
    const s = new VirtualScroll(64, () => total);
    s.height = 600;
    const el = element(s.window.height, 600);
    expect(s.window.scaled).toBe(true);
    for (let i = 0; i < 50; i++) s.onWheel(el, wheel(3));
    expect(s.window.virtualTop).toBe(150);
    s.onScroll(el); // the browser's scroll event for our own move changes nothing
    expect(s.window.virtualTop).toBe(150);
    s.onWheel(el, wheel(1, 1)); // one line: one row
    expect(s.window.virtualTop).toBe(214);
    expect(s.window.first).toBe(Math.max(0, Math.floor(214 / 64) - 6));
  });

  it('follows the scrollbar to the very last row, and shows any row asked for', () => {
    const total = 1_000_000;
    const s = new VirtualScroll(64, () => total);
    s.height = 600;
    const el = element(s.window.height, 600);
    el.scrollTop = 1e12; // dragged to the bottom
    s.onScroll(el);
    expect(s.window.last).toBe(total - 1);
    s.show(el, 123_456);
    const w = s.window;
    expect(w.virtualTop).toBeLessThanOrEqual(123_456 * 64);
    expect(w.virtualTop + 600).toBeGreaterThanOrEqual(123_457 * 64);
    // The row is drawn inside the viewport.
    const y = w.offset + (123_456 - w.first) * 64 - el.scrollTop;
    expect(y).toBeGreaterThanOrEqual(0);
    expect(y + 64).toBeLessThanOrEqual(600);
    s.show(el, total - 1);
    expect(s.window.last).toBe(total - 1);
    s.reset(el);
    expect(el.scrollTop).toBe(0);
    expect(s.window.first).toBe(0);
  });

  it('leaves a list that fits to the browser', () => {
    const s = new VirtualScroll(64, () => 100);
    s.height = 600;
    let prevented = false;
    const e = { ...wheel(100), preventDefault: () => (prevented = true) } as unknown as WheelEvent;
    const el = element(s.window.height, 600);
    s.onWheel(el, e);
    expect(prevented).toBe(false);
    el.scrollTop = 640;
    s.onScroll(el);
    expect(s.window.first).toBe(10 - 6);
  });
});

describe('VirtualScroll, what review found', () => {
  it('does not chase a row in a view measured 0 high (a hidden view)', () => {
    const s = new VirtualScroll(64, () => 1_000_000);
    s.height = 0;
    const el = element(s.window.height, 0);
    s.show(el, 700_000);
    expect(el.scrollTop).toBe(0);
  });

  it('a user scroll that lands where we last put the list is still followed later', () => {
    const s = new VirtualScroll(64, () => 1_000_000);
    s.height = 600;
    const el = element(s.window.height, 600);
    s.onWheel(el, wheel(640));
    s.onScroll(el); // ours
    const st = el.scrollTop;
    el.scrollTop = st + 1000; // the scrollbar
    s.onScroll(el);
    el.scrollTop = st; // and back to exactly where we had put it
    s.onScroll(el);
    expect(s.window.virtualTop).toBeCloseTo(virtualFrom(st, 600, 64, 1_000_000), 6);
  });
});
