// Comparing an item's working copy with what the store returned: the store leaves out empty
// optional fields and writes keys in its own order, while the UI may hold `null`, `[]` or a
// key added later. Two states are the same when their canonical forms are.

function canon(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = canon((v as Record<string, unknown>)[k]);
      const empty = x === null || x === undefined || (Array.isArray(x) && x.length === 0) || (typeof x === 'object' && x !== null && !Array.isArray(x) && Object.keys(x).length === 0);
      if (!empty) out[k] = x;
    }
    return out;
  }
  return v;
}

export function canonicalJson(v: unknown): string {
  return JSON.stringify(canon(v));
}

export function sameState(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
