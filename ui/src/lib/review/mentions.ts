// Splits a comment into plain text and @mentions so the thread can mark mentions without ever
// treating the text as HTML. Mirrors the store's rule (assay-core store/comments.rs): a mention is
// `@` not preceded by a letter or digit, then letters, digits, `_`, `-`, `.`, minus a trailing
// `.` or `-`.

export interface Segment {
  text: string;
  mention: boolean;
}

export function mentionSegments(body: string): Segment[] {
  const out: Segment[] = [];
  const re = /(^|[^\p{L}\p{N}])@([\p{L}\p{N}_.-]+)/gu;
  let last = 0;
  for (const m of body.matchAll(re)) {
    const name = m[2].replace(/[.-]+$/u, '');
    if (!name) continue;
    const start = m.index + m[1].length;
    if (start > last) out.push({ text: body.slice(last, start), mention: false });
    out.push({ text: '@' + name, mention: true });
    last = start + 1 + name.length;
  }
  if (last < body.length) out.push({ text: body.slice(last), mention: false });
  return out;
}

/** The names a comment mentions, in order, once each. */
export function mentionedNames(body: string): string[] {
  const names = mentionSegments(body)
    .filter((s) => s.mention)
    .map((s) => s.text.slice(1));
  return [...new Set(names)];
}
