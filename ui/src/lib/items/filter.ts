import type { Filter } from '../api/client';

export function emptyFilter(): Filter {
  return { datasets: [], categories: [], ops: [], tags: [], statuses: [], ref_types: [], formats: [], has_box: null, size_ratio: null, center_distance: null, saliency: null, dropped_at: null, kept: null, text: null, ids: [], sort: null };
}

/** Adds the value if absent, removes it if present. */
export function toggle<T>(list: T[], value: T): T[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

export function isEmpty(f: Filter): boolean {
  return (
    f.datasets.length + f.categories.length + f.ops.length + f.tags.length + f.statuses.length + f.ref_types.length + f.formats.length === 0 &&
    f.has_box === null &&
    f.size_ratio === null &&
    f.center_distance === null &&
    f.saliency === null &&
    f.dropped_at === null &&
    f.kept === null &&
    !f.text
  );
}
