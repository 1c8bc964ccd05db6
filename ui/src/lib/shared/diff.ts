// Character-level diff on code points, so Japanese and Korean text (and surrogate pairs) diff
// by character, not by UTF-16 unit.

export type Segment = { kind: 'same' | 'del' | 'ins'; text: string };

const LIMIT = 4000;

export function diffChars(before: string, after: string): Segment[] {
  const a = Array.from(before);
  const b = Array.from(after);
  if (a.length * b.length > LIMIT * LIMIT) {
    return [
      { kind: 'del', text: before },
      { kind: 'ins', text: after },
    ].filter((s) => s.text.length > 0) as Segment[];
  }
  // Trim the common prefix and suffix first: edits are usually small.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = midA[i] === midB[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: Segment[] = [];
  const push = (kind: Segment['kind'], ch: string) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind) last.text += ch;
    else out.push({ kind, text: ch });
  };
  if (start > 0) out.push({ kind: 'same', text: a.slice(0, start).join('') });
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (midA[i] === midB[j]) {
      push('same', midA[i]);
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      push('del', midA[i++]);
    } else {
      push('ins', midB[j++]);
    }
  }
  while (i < n) push('del', midA[i++]);
  while (j < m) push('ins', midB[j++]);
  if (endA < a.length) push('same', a.slice(endA).join(''));
  return out;
}
