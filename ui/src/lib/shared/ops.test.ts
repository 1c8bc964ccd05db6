import { describe, expect, it } from 'vitest';
import { ISSUE_TAGS, REFINEMENT_OPS } from '../api/bindings';
import { OPS, TAGS } from './ops';

describe('labels', () => {
  it('cover exactly the operations and tags Rust declares, in its order', () => {
    expect(OPS.map((o) => o.op)).toEqual([...REFINEMENT_OPS]);
    expect(TAGS.map((t) => t.tag)).toEqual([...ISSUE_TAGS]);
  });
});
