import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';

vi.mock('../api/client', () => ({
  api: { syncConflicts: () => Promise.reject({ code: 'team', message: 'connection refused' }) },
  asApiError: (e: { code: string; message: string }) => e,
}));
vi.mock('./sync.svelte', () => ({
  teamSync: { status: { team: 'postgres://db/team', offline: false, error: null, refused: 0, conflicts: 0, pending: 0 }, syncing: false, error: null },
  describe: () => 'synced',
  refreshTeamStatus: vi.fn(),
  syncNow: vi.fn(),
}));

import TeamSyncPanel from './TeamSyncPanel.svelte';

afterEach(cleanup);

describe('Team database', () => {
  it('shows that the conflicts could not be read, not "(0)" conflicts', async () => {
    const { findByTestId, getByText } = render(TeamSyncPanel);
    expect((await findByTestId('load-error')).textContent).toContain('connection refused');
    expect(getByText('(?)')).toBeTruthy();
  });
});
