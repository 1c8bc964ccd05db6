import { afterEach, describe, expect, it } from 'vitest';
import { mockIPC, clearMocks } from '@tauri-apps/api/mocks';
import { Browse, KEEP_PAGES, PAGE } from './browse.svelte';
import type { ItemRow } from '../api/client';

function row(i: number): ItemRow {
  return {
    id: i + 1, dataset_id: 1, ext_id: `q${i}`, seq: i, rev: 0, format: 'short_answer', category: null, op: null, tags: [],
    status: 'todo', ref_type: null, has_box: false, image_count: 0, thumb_hash: null, question: `question ${i}`, answer: null,
    size_ratio: null, center_distance: null, saliency: null,
  };
}

afterEach(() => clearMocks());

describe('Browse pages at a million items', () => {
  it('keeps a bounded number of pages, the first and the open item’s among them', async () => {
    let asked = 0;
    mockIPC((cmd, args) => {
      if (cmd === 'query_items') {
        asked++;
        const { offset, limit } = (args as { page: { offset: number; limit: number } }).page;
        return { total: 1_000_000, rows: Array.from({ length: limit }, (_, k) => row(offset + k)) };
      }
      if (cmd === 'facets') return { datasets: [], categories: [], ops: [], statuses: [], ref_types: [], tags: [], has_box: [] };
      return null;
    });
    const b = new Browse();
    await b.refresh();
    await b.ensurePage(3);
    b.selected = row(3 * PAGE + 7).id;
    // Scroll far down, page by page.
    for (let p = 10; p < 10 + 3 * KEEP_PAGES; p++) {
      b.visible = [p * PAGE, p * PAGE + 12];
      await b.ensurePage(p);
    }
    const kept = Object.keys(b.rows).length;
    expect(kept).toBeLessThanOrEqual(KEEP_PAGES * PAGE);
    expect(b.rows[0]?.ext_id).toBe('q0');
    expect(b.rows[3 * PAGE + 7]?.ext_id).toBe(`q${3 * PAGE + 7}`);
    const last = 10 + 3 * KEEP_PAGES - 1;
    expect(b.rows[last * PAGE]?.ext_id).toBe(`q${last * PAGE}`);
    // The pages nearest the last one stayed; the ones scrolled past long ago went.
    expect(b.rows[10 * PAGE]).toBeUndefined();
    // J from the open item steps to its neighbour, not to the top.
    expect(await b.neighbour(1)).toBe(row(3 * PAGE + 8).id);
    // A page that went is fetched again when it comes back into view.
    const before = asked;
    b.visible = [10 * PAGE, 10 * PAGE + 12];
    await b.ensurePage(10);
    expect(asked).toBe(before + 1);
    expect(b.rows[10 * PAGE]?.ext_id).toBe(`q${10 * PAGE}`);
    // An edit patches the row in place of a refetch.
    b.patchRow({ id: row(0).id, question: 'fixed' });
    expect(b.rows[0]?.question).toBe('fixed');
    // A far page answering late does not drop the page in view (a quick drag of the scrollbar).
    b.visible = [2500 * PAGE, 2500 * PAGE + 12];
    await b.ensurePage(2500);
    for (let p = 3900; p < 3900 + KEEP_PAGES; p++) await b.ensurePage(p);
    expect(b.rows[2500 * PAGE]?.ext_id).toBe(`q${2500 * PAGE}`);
    expect(Object.keys(b.rows).length).toBeLessThanOrEqual(KEEP_PAGES * PAGE);
  });
});
