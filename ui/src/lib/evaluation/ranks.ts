/** Each model's rank (1 = best) by accuracy on one side; ties broken by name so it is stable. */
export function ranks(models: { model: string; before: number; after: number }[], side: 'before' | 'after'): Map<string, number> {
  const sorted = [...models].sort((a, b) => b[side] - a[side] || a.model.localeCompare(b.model));
  return new Map(sorted.map((m, i) => [m.model, i + 1]));
}
