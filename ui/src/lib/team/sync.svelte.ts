// The replica's sync with its team database: every few seconds and after each save, one sync at
// a time, in the background (the shell runs it on its own connection). Unreachable is a state
// ("offline"), not an error: work goes on locally and is pushed on the next sync that gets through.
import { api, asApiError } from '../api/client';
import type { TeamStatus } from '../api/client';

export const SYNC_EVERY_MS = 5000;

export const teamSync = $state({
  status: null as TeamStatus | null,
  syncing: false,
  error: null as string | null,
});

let timer: ReturnType<typeof setInterval> | null = null;

export async function refreshTeamStatus(): Promise<void> {
  teamSync.status = await api.teamStatus().catch((e) => {
    teamSync.error = asApiError(e).message;
    return null;
  });
}

export async function syncNow(): Promise<void> {
  if (teamSync.syncing || !teamSync.status?.team) return;
  teamSync.syncing = true;
  try {
    teamSync.status = await api.teamSync();
    teamSync.error = null;
  } catch (e) {
    teamSync.error = asApiError(e).message;
  } finally {
    teamSync.syncing = false;
  }
}

/** Starts the periodic sync for the open project; returns the stop function. */
export function startSyncing(onPulled: () => void): () => void {
  void refreshTeamStatus();
  timer = setInterval(async () => {
    if (!teamSync.status?.team) return;
    await syncNow();
    if ((teamSync.status?.pulled ?? 0) > 0) onPulled();
  }, SYNC_EVERY_MS);
  return () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
}

/** Words for the top bar. */
export function describe(s: TeamStatus | null, syncing: boolean, error: string | null): string {
  if (!s?.team) return '';
  if (error) return 'sync error';
  if (syncing) return 'syncing…';
  if (s.offline) return `offline · ${s.pending} pending`;
  const when = s.last_sync ? s.last_sync.slice(11, 19) : 'never';
  return `synced ${when}${s.pending ? ` · ${s.pending} pending` : ''}${s.conflicts ? ` · ${s.conflicts} conflict${s.conflicts === 1 ? '' : 's'}` : ''}${s.refused ? ` · ${s.refused} refused` : ''}`;
}
