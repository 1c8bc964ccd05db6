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
    await new Promise((r) => setTimeout(r, 0));
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
    mockIPC((cmd, args) => {
      if (cmd === 'query_items') {
        const { offset, limit } = (args as { page: { offset: number; limit: number } }).page;
        return { total: 1_000_000, rows: Array.from({ length: limit }, (_, k) => row(offset + k, `q ${offset + k}`)) };
      }
      if (cmd === 'facets') return { datasets: [], categories: [], ops: [], statuses: [], ref_types: [], tags: [], has_box: [] };
      return null;
    });
    const browse = new Browse();
    await browse.refresh();
    const { container } = render(ItemList, { browse, onSelect: () => {} });
    await new Promise((r) => setTimeout(r, 0));
    const list = container.querySelector('[data-testid="item-list"]') as HTMLElement;
    const tall = Array.from(list.children).reduce((sum, el) => sum + ((el as HTMLElement).style.height ? parseFloat((el as HTMLElement).style.height) : 64), 0);
    // 1,000,000 rows of 64 px would be 64 million pixels, past WebKit's ~33.5 million.
    expect(tall).toBe(8_000_000);
    expect(list.querySelectorAll('[data-testid="item-row"]').length).toBeGreaterThan(0);
  });
});
