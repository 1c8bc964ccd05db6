import { afterEach, describe, expect, it } from 'vitest';
import { Router, formatHash, parseHash } from './route.svelte';

describe('routes', () => {
  it('reads a view and an open item from the hash', () => {
    expect(parseHash('#/triage')).toEqual({ view: 'triage', item: null });
    expect(parseHash('#/evaluation/42')).toEqual({ view: 'evaluation', item: 42 });
    expect(parseHash('#/items/7/')).toEqual({ view: 'items', item: 7 });
  });
  it('falls back to the items view on anything else', () => {
    expect(parseHash('')).toEqual({ view: 'items', item: null });
    expect(parseHash('#/nowhere/3')).toEqual({ view: 'items', item: 3 });
    expect(parseHash('#/team/-1')).toEqual({ view: 'team', item: null });
    expect(parseHash('#/team/1e3')).toEqual({ view: 'team', item: 1000 });
    expect(parseHash('#/team/abc')).toEqual({ view: 'team', item: null });
  });
  it('round-trips', () => {
    for (const r of [{ view: 'models', item: null }, { view: 'review', item: 12 }] as const) {
      expect(parseHash(formatHash(r))).toEqual(r);
    }
  });
});

describe('Router', () => {
  afterEach(() => {
    localStorage.clear();
    history.replaceState(null, '', '#');
  });
  it('restores the last route of the same project after a restart', () => {
    history.replaceState(null, '', '#');
    const a = new Router('/p/one.assay');
    const stop = a.start();
    a.go('triage', 5);
    stop();
    history.replaceState(null, '', '#');
    const again = new Router('/p/one.assay');
    again.start()();
    expect(again.route).toEqual({ view: 'triage', item: 5 });
    history.replaceState(null, '', '#');
    const other = new Router('/p/two.assay');
    other.start()();
    expect(other.route).toEqual({ view: 'items', item: null });
  });
  it('returns to the item last open in a view', () => {
    const r = new Router('/p/x.assay');
    const stop = r.start();
    r.go('evaluation');
    r.open(9);
    r.go('models');
    expect(r.route).toEqual({ view: 'models', item: null });
    r.go('evaluation');
    expect(r.route).toEqual({ view: 'evaluation', item: 9 });
    expect(location.hash).toBe('#/evaluation/9');
    expect(r.visited).toEqual(['items', 'evaluation', 'models']);
    stop();
  });
});
