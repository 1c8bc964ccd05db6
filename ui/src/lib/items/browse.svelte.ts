// The browse state: the filter, the list's pages (fetched as they scroll into view), facet
// counts and the selected item. The filter is saved per project so it survives a restart.
import { api, asApiError } from '../api/client';
import { failed } from '../failures.svelte';
import type { Facets, Filter, ItemRow } from '../api/client';
import { emptyFilter } from './filter';
import { pagesFor } from './window';
import { SvelteSet } from 'svelte/reactivity';

export const PAGE = 200;
/** Pages of rows kept at most (10,000 rows): scrolling through a million items keeps memory
 * and the cost of adding a page flat, the pages farthest from the new one going first. */
export const KEEP_PAGES = 50;

export class Browse {
  filter = $state<Filter>(emptyFilter());
  total = $state(0);
  facets = $state<Facets | null>(null);
  /** Loaded rows by list index. Replaced whole, never mutated: rows are data to draw, not
   * state to track field by field. */
  rows = $state.raw<Record<number, ItemRow>>({});
  selected = $state<number | null>(null);
  error = $state<string | null>(null);
  /** Milliseconds the last filter change took for its first page and count. */
  lastQueryMs = $state(0);
  /** Items picked in the table (ctrl/shift-click, checkboxes), by id. */
  picked = new SvelteSet<number>();
  /** "Select all matching": every item the filter matches, however many, without listing them. */
  allMatching = $state(false);
  /** The row index a shift-click extends from. */
  private anchor: number | null = null;
  // Bookkeeping only: nothing renders from it, so it need not be reactive.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private loaded = new Set<number>();
  /** Pages whose rows have arrived: only these are ever dropped, so a fetch in flight is not
   * dropped and then written back unbounded. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  private fetched = new Set<number>();
  /** The rows the views draw (first, last index), set by them: never dropped, and the
   * distance a page is dropped by is measured from them. */
  visible: [number, number] = [0, 0];
  private generation = 0;
  /** Changes when the list is fetched anew (filter, refresh), not when a page arrives or a row
   * is patched: what per-row extras fetched for the list are keyed on. */
  version = $state(0);

  async restore(): Promise<void> {
    try {
      this.filter = { ...emptyFilter(), ...(await api.savedFilter()) };
    } catch {
      this.filter = emptyFilter();
    }
    await this.refresh();
  }

  setFilter(f: Filter): void {
    this.filter = f;
    // A selection belongs to the list it was made in: acting on items no longer shown would
    // surprise, so a new filter starts with none.
    this.clearSelection();
    // Saved at once (the search box already debounces typing), so closing the window right
    // after a change still reopens on it.
    api.saveFilter($state.snapshot(this.filter) as Filter).catch(failed('Saving the filter', undefined));
    void this.refresh();
  }

  async refresh(): Promise<void> {
    const gen = ++this.generation;
    const filter = $state.snapshot(this.filter) as Filter;
    const t = performance.now();
    try {
      const first = await api.queryItems(filter, { offset: 0, limit: PAGE });
      if (gen !== this.generation) return;
      this.lastQueryMs = performance.now() - t;
      this.total = first.total;
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      this.loaded = new Set([0]);
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      this.fetched = new Set([0]);
      this.version = gen;
      const rows: Record<number, ItemRow> = {};
      first.rows.forEach((r, i) => (rows[i] = r));
      this.rows = rows;
      this.error = null;
      await this.refreshFacets(gen);
    } catch (e) {
      if (gen === this.generation) this.error = asApiError(e).message;
    }
  }

  /** Facet counts for the current filter; after an edit they change without the list. */
  async refreshFacets(gen = this.generation): Promise<void> {
    const facets = await api.facets($state.snapshot(this.filter) as Filter);
    if (gen === this.generation) this.facets = facets;
  }

  /** The views' rows in view changed (or the rows were replaced): fetches their pages and half
   * a page ahead either way, since a page deep in a million rows takes longer to fetch than a
   * fast scroll takes to cross the few rows of overscan (bench-open: 33 frames of 297 drew a
   * row still waiting, without it). */
  showRows(first: number, last: number): void {
    this.visible = [first, last];
    const from = Math.max(0, first - PAGE / 2);
    const to = Math.min(this.total - 1, last + PAGE / 2);
    for (const p of pagesFor(from, to, PAGE)) void this.ensurePage(p);
  }

  async ensurePage(page: number): Promise<void> {
    if (this.loaded.has(page)) return;
    this.loaded.add(page);
    const gen = this.generation;
    try {
      const res = await api.queryItems($state.snapshot(this.filter) as Filter, { offset: page * PAGE, limit: PAGE });
      if (gen !== this.generation) return;
      const rows = { ...this.rows };
      res.rows.forEach((r, i) => (rows[page * PAGE + i] = r));
      this.fetched.add(page);
      this.evictFar(rows);
      this.rows = rows;
    } catch (e) {
      this.loaded.delete(page);
      this.error = asApiError(e).message;
    }
  }

  /** Drops the fetched pages farthest from the rows in view beyond [`KEEP_PAGES`], never a
   * page in view, the first page, nor the one holding the open item (J/K step from it). */
  private evictFar(rows: Record<number, ItemRow>): void {
    if (this.fetched.size <= KEEP_PAGES) return;
    const [lo, hi] = [Math.floor(this.visible[0] / PAGE), Math.floor(this.visible[1] / PAGE)];
    const sel = this.selected === null ? -1 : this.indexOf(this.selected);
    const held = (p: number) => (p >= lo && p <= hi) || p === 0 || (sel >= 0 && p === Math.floor(sel / PAGE));
    const away = (p: number) => (p < lo ? lo - p : p - hi);
    const far = [...this.fetched].filter((p) => !held(p)).sort((a, b) => away(b) - away(a));
    for (const p of far.slice(0, this.fetched.size - KEEP_PAGES)) {
      this.loaded.delete(p);
      this.fetched.delete(p);
      for (let i = p * PAGE; i < (p + 1) * PAGE; i++) delete rows[i];
    }
  }

  /** Updates one row after an edit without refetching the list. */
  patchRow(row: Partial<ItemRow> & { id: number }): void {
    let rows: Record<number, ItemRow> | null = null;
    for (const [k, r] of Object.entries(this.rows)) {
      if (r.id !== row.id) continue;
      rows ??= { ...this.rows };
      rows[Number(k)] = { ...r, ...row };
    }
    if (rows) this.rows = rows;
  }

  /** How many items a bulk action would act on. */
  get selectedCount(): number {
    return this.allMatching ? this.total : this.picked.size;
  }

  clearSelection(): void {
    this.picked.clear();
    this.allMatching = false;
    this.anchor = null;
  }

  /** A click on row `index` (item `id`): alone it picks just that row; with Ctrl/Cmd it toggles
   * the row; with Shift it picks the range from the last picked row (fetching the ids of rows
   * not loaded yet, so a range over a million rows works). */
  async pick(index: number, id: number, keys: PickKeys): Promise<void> {
    if (this.allMatching && keys.toggle && !keys.shift) {
      // Unticking one row of "all matching": every other matching item stays picked.
      const all = await api.itemIds($state.snapshot(this.filter) as Filter);
      this.allMatching = false;
      this.picked.clear();
      for (const i of all) if (i !== id) this.picked.add(i);
      this.anchor = index;
      return;
    }
    this.allMatching = false;
    if (keys.shift && this.anchor !== null) {
      const [lo, hi] = this.anchor < index ? [this.anchor, index] : [index, this.anchor];
      const ids = await this.idsBetween(lo, hi);
      for (const i of ids) this.picked.add(i);
      return;
    }
    if (keys.toggle) {
      if (this.picked.has(id)) this.picked.delete(id);
      else this.picked.add(id);
    } else {
      this.picked.clear();
      this.picked.add(id);
    }
    this.anchor = index;
  }

  /** Where a later shift-click extends from, without picking (a plain click opens the row). */
  setAnchor(index: number): void {
    this.anchor = index;
  }

  selectAllMatching(): void {
    this.picked.clear();
    this.allMatching = true;
  }

  /** The items a bulk action acts on, as a filter the store understands. */
  selectionFilter(): Filter {
    const f = $state.snapshot(this.filter) as Filter;
    if (this.allMatching) return { ...f, sort: null };
    return { ...emptyFilter(), ids: [...this.picked] };
  }

  private async idsBetween(lo: number, hi: number): Promise<number[]> {
    const out: number[] = [];
    let missing = false;
    for (let i = lo; i <= hi; i++) {
      const r = this.rows[i];
      if (r) out.push(r.id);
      else missing = true;
    }
    if (!missing) return out;
    const all = await api.itemIds($state.snapshot(this.filter) as Filter);
    return all.slice(lo, hi + 1);
  }

  indexOf(id: number): number {
    for (const [k, r] of Object.entries(this.rows)) if (r.id === id) return Number(k);
    return -1;
  }

  /** The id `step` rows away from the selection within the current filter (J/K). */
  async neighbour(step: number): Promise<number | null> {
    const cur = this.selected === null ? -1 : this.indexOf(this.selected);
    const next = Math.min(Math.max(cur + step, 0), this.total - 1);
    if (next < 0 || next === cur) return null;
    await this.ensurePage(Math.floor(next / PAGE));
    return this.rows[next]?.id ?? null;
  }
}

export interface PickKeys {
  shift: boolean;
  toggle: boolean;
}
