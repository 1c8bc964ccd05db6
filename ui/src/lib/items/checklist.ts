// Checklist edits as pure functions, and the rules the store enforces on them (1-5 criteria,
// none empty, none repeated), so the editor can say what is wrong before saving.

export const MAX_CRITERIA = 5;

const norm = (s: string) => s.split(/\s+/).filter(Boolean).join(' ').toLowerCase();

/** Problems per criterion index, plus one for the whole list (index -1). */
export function checklistProblems(list: string[]): Map<number, string> {
  const out = new Map<number, string>();
  if (list.length > MAX_CRITERIA) out.set(-1, `a checklist has 1–${MAX_CRITERIA} criteria, this one has ${list.length}`);
  const seen = new Map<string, number>();
  list.forEach((c, i) => {
    const n = norm(c);
    if (!n) out.set(i, 'empty');
    else if (seen.has(n)) out.set(i, `repeats criterion ${seen.get(n)! + 1}`);
    else seen.set(n, i);
  });
  return out;
}

export function moveCriterion(list: string[], from: number, to: number): string[] {
  if (to < 0 || to >= list.length || from === to) return list;
  const out = [...list];
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x);
  return out;
}

export function removeCriterion(list: string[], i: number): string[] {
  return list.filter((_, k) => k !== i);
}

/** S_i for one item: the mean of its criterion ratings (met 1, partially met 0.5, not met 0). */
export function checklistScore(ratings: number[]): number | null {
  return ratings.length ? ratings.reduce((a, b) => a + b, 0) / ratings.length : null;
}
