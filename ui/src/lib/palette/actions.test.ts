import { describe, expect, it } from 'vitest';
import { filterActions, type Action } from './actions';

const a = (id: string, label: string, enabled = true, keys?: string): Action => ({ id, label, group: 'Review', keys, enabled, run: () => {} });

describe('the palette', () => {
  it('finds actions by every word typed, enabled ones first', () => {
    const list = [a('sign', 'Sign off the item', false), a('approve', 'Approve the revision', true, 'Y'), a('send', 'Request changes', true, 'X')];
    expect(filterActions(list, '').map((x) => x.id)).toEqual(['approve', 'send', 'sign']);
    expect(filterActions(list, 'the item').map((x) => x.id)).toEqual(['sign']);
    expect(filterActions(list, 'REVIEW y').map((x) => x.id)).toEqual(['approve']);
    expect(filterActions(list, 'nothing like it')).toEqual([]);
  });
});
