import { describe as suite, expect, it } from 'vitest';
import { describe } from './sync.svelte';
import type { TeamStatus } from '../api/client';

const base: TeamStatus = {
  team: 'postgres://aiko@db/team', pending: 0, conflicts: 0, refused: 0, last_sync: '2026-11-30T22:40:05.1Z',
  offline: false, error: null, pushed: 0, pulled: 0,
};

suite('sync state words', () => {
  it('says nothing for a project of one', () => {
    expect(describe({ ...base, team: null }, false, null)).toBe('');
  });
  it('shows the last sync, pending rows and conflicts', () => {
    expect(describe(base, false, null)).toBe('synced 22:40:05');
    expect(describe({ ...base, pending: 3, conflicts: 1 }, false, null)).toBe('synced 22:40:05 · 3 pending · 1 conflict');
    expect(describe({ ...base, conflicts: 2 }, false, null)).toBe('synced 22:40:05 · 2 conflicts');
    expect(describe({ ...base, refused: 1 }, false, null)).toBe('synced 22:40:05 · 1 refused');
  });
  it('says offline with what waits to be pushed', () => {
    expect(describe({ ...base, offline: true, pending: 7 }, false, null)).toBe('offline · 7 pending');
    expect(describe(base, true, null)).toBe('syncing…');
    expect(describe(base, false, 'team: refused')).toBe('sync error');
  });
});
