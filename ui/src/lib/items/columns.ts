// The item table's columns: what each shows, how wide it starts, and which store column it
// sorts by (the store sorts; the UI never reorders rows itself, so paging stays consistent).
import type { ItemExtras, ItemRow, RunListRow, Sort, SortColumn } from '../api/client';
import { opLabel } from '../shared/ops';

/** What a cell may read beyond its row: dataset names, and the round and run columns fetched
 * for the rows on screen. */
export interface ColumnContext {
  datasetName: (id: number) => string;
  extra: (itemId: number) => ItemExtras | undefined;
}

export interface Column {
  id: string;
  label: string;
  width: number;
  sort: SortColumn | null;
  /** The run a `run_score` column sorts by. */
  sortRun?: number;
  text: (r: ItemRow, ctx: ColumnContext) => string;
  /** Numbers align right and read as such. */
  numeric?: boolean;
  /** Read from `table_extras` (rounds, runs) rather than the row. */
  extra?: boolean;
}

const metric = (v: number | null) => (v === null ? '' : v.toFixed(3));

export const COLUMNS: Column[] = [
  { id: 'ext_id', label: 'ID', width: 110, sort: 'ext_id', text: (r) => r.ext_id },
  { id: 'dataset', label: 'Dataset', width: 110, sort: null, text: (r, ctx) => ctx.datasetName(r.dataset_id) },
  { id: 'question', label: 'Question', width: 320, sort: 'question', text: (r) => r.question },
  { id: 'answer', label: 'Answer', width: 140, sort: 'answer', text: (r) => r.answer ?? '' },
  { id: 'op', label: 'Operation', width: 120, sort: 'op', text: (r) => (r.op ? opLabel(r.op) : '') },
  { id: 'tags', label: 'Tags', width: 150, sort: null, text: (r) => r.tags.map((t) => t.replaceAll('_', ' ')).join(', ') },
  { id: 'status', label: 'Status', width: 90, sort: 'status', text: (r) => r.status },
  { id: 'category', label: 'Category', width: 120, sort: 'category', text: (r) => r.category ?? '' },
  { id: 'ref_type', label: 'Ref. type', width: 110, sort: 'ref_type', text: (r) => (r.ref_type ?? '').replaceAll('_', ' ') },
  { id: 'size_ratio', label: 'Box size', width: 90, sort: 'size_ratio', numeric: true, text: (r) => metric(r.size_ratio) },
  { id: 'center_distance', label: 'Centre dist.', width: 100, sort: 'center_distance', numeric: true, text: (r) => metric(r.center_distance) },
  { id: 'saliency', label: 'Saliency', width: 90, sort: 'saliency', numeric: true, text: (r) => metric(r.saliency) },
  { id: 'rev', label: 'Rev.', width: 60, sort: 'rev', numeric: true, text: (r) => String(r.rev) },
  { id: 'assignees', label: 'Assigned to', width: 140, sort: 'assignee', extra: true, text: (r, ctx) => ctx.extra(r.id)?.assignees.join(', ') ?? '' },
  { id: 'agreement', label: 'Agreement', width: 90, sort: 'agreement', extra: true, text: (r, ctx) => ctx.extra(r.id)?.agreement ?? '' },
];

/** A column of one run's score on each item ("stale" when it scored an older revision). `at`
 * is the run's place in the list of runs the extras were fetched for. */
export function runColumn(row: RunListRow, at: number): Column {
  return {
    id: `run:${row.run.id}`,
    label: `${row.run.model} · ${row.run.version}${row.run.variant === 'original' ? '' : ` · ${row.run.variant.replaceAll('_', ' ')}`}`,
    width: 120,
    sort: 'run_score',
    sortRun: row.run.id,
    numeric: true,
    extra: true,
    text: (r, ctx) => {
      const e = ctx.extra(r.id);
      const v = e?.scores[at];
      if (v === null || v === undefined) return '';
      return `${v.toFixed(2)}${e?.stale[at] ? ' (stale)' : ''}`;
    },
  };
}

export const DEFAULT_COLUMNS = ['ext_id', 'question', 'answer', 'op', 'status'];

/** Known columns in the given order; unknown names (from a newer Assay's saved view, a run
 * since deleted) dropped. `extra` are the run columns on offer. */
export function pickColumns(ids: string[], extra: Column[] = []): Column[] {
  const all = [...COLUMNS, ...extra];
  const out = ids.map((id) => all.find((c) => c.id === id)).filter((c): c is Column => !!c);
  return out.length ? out : pickColumns(DEFAULT_COLUMNS);
}

/** Whether `sort` is the order of `column` (of its run, for a run's score). */
export function sortedBy(sort: Sort | null, column: SortColumn, run?: number): boolean {
  return !!sort && sort.column === column && (sort.run ?? undefined) === run;
}

/** Clicking a header: ascending, then descending, then back to dataset order. A run's score
 * column names its run. */
export function nextSort(current: Sort | null, column: SortColumn, run?: number): Sort | null {
  const base: Sort = run === undefined ? { column, desc: false } : { column, desc: false, run };
  if (!current || !sortedBy(current, column, run)) return base;
  if (!current.desc) return { ...base, desc: true };
  return null;
}
