// Vague references in a question ("this", "that", これ, あれ, 이거, 저거 ...): the words an
// annotator must check against the image, highlighted so none is missed. Demonstratives only,
// the way CRAG-MM-Diagnostics and HAERAE-Vision describe under-specified questions.

export type Segment = { text: string; vague: boolean };

const EN = ['this', 'that', 'these', 'those', 'it', 'here', 'there', 'they', 'them'];
// Japanese ko-so-a-do demonstratives, longest first so この is not read as こ.
const JA = ['こちら', 'そちら', 'あちら', 'これ', 'それ', 'あれ', 'この', 'その', 'あの', 'ここ', 'そこ', 'あそこ', 'こんな', 'そんな', 'あんな'];
// Korean demonstratives (이/그/저 + noun forms); the bare determiners 이/그/저 are too common
// inside other words to flag.
const KO = ['이것', '그것', '저것', '이거', '그거', '저거', '여기', '거기', '저기', '이런', '그런', '저런', '이 ', '그 ', '저 '];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pattern = new RegExp(
  [
    `\\b(?:${EN.join('|')})\\b`,
    ...[...JA, ...KO.map((k) => k.trimEnd())]
      .sort((a, b) => b.length - a.length)
      .map((w) => (KO.includes(`${w} `) ? `(?<![\\p{L}])${escape(w)}(?= )` : escape(w))),
  ].join('|'),
  'giu',
);

/** The question cut into plain and vague segments, in order; joined they give it back. */
export function vagueSegments(text: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const i = m.index ?? 0;
    if (i > last) out.push({ text: text.slice(last, i), vague: false });
    out.push({ text: m[0], vague: true });
    last = i + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), vague: false });
  return out;
}

export function vagueWords(text: string): string[] {
  return vagueSegments(text)
    .filter((s) => s.vague)
    .map((s) => s.text);
}
