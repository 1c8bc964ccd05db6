import { describe, expect, it } from 'vitest';
import cases from '../../../../tests/fixtures/rules/editor_rules.json';
import { mentionedNames } from '../review/mentions';
import { checklistProblems } from '../items/checklist';
import { needsDisambiguation } from '../grounding/refTypes';
import type { ItemContent, RefType } from '../api/client';

// The same cases assay-core's store is tested on (store/items.rs, shared_rules): the editor's live
// checks never disagree with what the store will refuse.
describe('rules shared with the store', () => {
  it('find the same mentions', () => {
    for (const c of cases.mentions) expect(mentionedNames(c.body), c.body).toEqual(c.names);
  });
  it('accept and refuse the same checklists', () => {
    for (const c of cases.checklists) expect(checklistProblems(c.criteria).size === 0, JSON.stringify(c.criteria)).toBe(c.ok);
  });
  it('ask for a disambiguated question in the same cases', () => {
    for (const c of cases.disambiguation) {
      const content = { ref_type: c.ref_type as RefType | null, disambiguated_question: c.disambiguated_question } as ItemContent;
      expect(needsDisambiguation(content), JSON.stringify(c)).toBe(c.needs);
    }
  });
});
