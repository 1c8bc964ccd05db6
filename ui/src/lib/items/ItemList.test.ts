import { afterEach, describe, expect, it } from 'vitest';
import { render, cleanup } from '@testing-library/svelte';
import { mockIPC, clearMocks } from '@tauri-apps/api/mocks';
import ItemList from './ItemList.svelte';
import { Browse } from './browse.svelte';
import type { ItemRow } from '../api/client';

function row(i: number, question: string): ItemRow {
  return {
    id: i + 1, dataset_id: 1, ext_id: `q${i}`, seq: i, rev: 0, format: 'short_answer', category: null, op: null, tags: [],
    status: 'todo', ref_type: null, has_box: false, image_count: 0, thumb_hash: null, question, answer: null, size_ratio: null, center_distance: null, saliency: null,
  };
}

/** The store as the list sees it: a million items, each page made on demand. */
function mockMillion() {
  mockIPC((cmd, args) => {
    if (cmd === 'query_items') {
      const { offset, limit } = (args as { page: { offset: number; limit: number } }).page;
      return { total: 1_000_000, rows: Array.from({ length: limit }, (_, k) => row(offset + k, `q ${offset + k}`)) };
    }
    if (cmd === 'facets') return { datasets: [], categories: [], ops: [], statuses: [], ref_types: [], tags: [], has_box: [] };
    return null;
  });
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/** The list over a million items, drawn; `height`: what the list measures (jsdom lays nothing
 * out, so 0 unless given, as a hidden view would). */
async function millionList(height?: number): Promise<{ browse: Browse; list: HTMLElement }> {
  mockMillion();
  const browse = new Browse();
  await browse.refresh();
  const was = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
  if (height !== undefined) Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => height });
  const { container } = render(ItemList, { browse, onSelect: () => {} });
  if (height !== undefined && was) Object.defineProperty(HTMLElement.prototype, 'clientHeight', was);
  await tick();
  return { browse, list: container.querySelector('[data-testid="item-list"]') as HTMLElement };
}

afterEach(() => {
  cleanup();
  clearMocks();
});

describe('ItemList', () => {
  it('renders hostile dataset text literally and only the visible rows', async () => {
    const hostile = '<img src=x onerror=alert(1)> <script>alert(2)</script>';
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === 'query_items') {
        const { offset, limit } = (args as { page: { offset: number; limit: number } }).page;
        const rows = Array.from({ length: limit }, (_, k) => row(offset + k, offset + k === 0 ? hostile : `質問 ${offset + k}`));
        return { total: 100_000, rows };
      }
      if (cmd === 'facets') return { datasets: [], categories: [], ops: [], statuses: [], ref_types: [], tags: [], has_box: [] };
      return null;
    });
    const browse = new Browse();
    await browse.refresh();
    const { container } = render(ItemList, { browse, onSelect: () => {} });
    await tick();
    const rows = container.querySelectorAll('[data-testid="item-row"]');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(60);
    expect(rows[0].textContent).toContain('<img src=x onerror=alert(1)>');
    expect(container.querySelector('img[src="x"]')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(calls.some(([c]) => c === 'query_items')).toBe(true);
  });
});

describe('ItemList at a million items', () => {
  it('keeps its scroll content within what a browser can draw', async () => {
    const { list } = await millionList();
    const tall = Array.from(list.children).reduce((sum, el) => sum + ((el as HTMLElement).style.height ? parseFloat((el as HTMLElement).style.height) : 64), 0);
    // 1,000,000 rows of 64 px would be 64 million pixels, past WebKit's ~33.5 million.
    expect(tall).toBe(8_000_000);
    expect(list.querySelectorAll('[data-testid="item-row"]').length).toBeGreaterThan(0);
  });
});

describe('ItemList near the top of a scaled list', () => {
  it('draws row `first` where the list position puts it, even above the content’s start', async () => {
    const { list } = await millionList();
    // Ten wheel steps of 30 px: the list position is 300 px (row 4 and a bit at the top), far
    // more than the scaled scrollbar has moved.
    for (let i = 0; i < 10; i++) list.dispatchEvent(new WheelEvent('wheel', { deltaY: 30, cancelable: true }));
    await tick();
    const spacer = list.children[0] as HTMLElement;
    const top = parseFloat(spacer.style.height) + parseFloat(spacer.style.marginBottom || '0');
    const first = list.querySelector('[data-testid="item-row"]') as HTMLElement;
    const index = Number(first.dataset.index);
    // Row `index` is drawn at `top` in the content: in view at index * 64 - 300 (above the
    // viewport's top for the overscan rows), wherever the scaled scrollbar stands.
    expect(list.scrollTop).toBeGreaterThan(0);
    expect(list.scrollTop).toBeLessThan(300);
    expect(top - list.scrollTop).toBeCloseTo(index * 64 - 300, 3);
  });

  it('scrolls away from the open item without being pulled back to it', async () => {
    // 600 px high, as a window would be: a hidden view (0 px) seeks no row.
    const { browse, list } = await millionList(600);
    browse.selected = 6; // row 5
    await tick();
    list.dispatchEvent(new WheelEvent('wheel', { deltaY: 20_000, cancelable: true }));
    await tick();
    const first = Number((list.querySelector('[data-testid="item-row"]') as HTMLElement).dataset.index);
    expect(first).toBeGreaterThan(20_000 / 64 - 10);
  });
});
