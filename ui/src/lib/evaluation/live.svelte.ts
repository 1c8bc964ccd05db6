// "Update after each save": when on, a saved edit runs the last evaluation request again in
// the background. The engine reuses every stored response whose request is unchanged, so an
// answer or option fix is re-scored with nothing sent, and a question or image change sends
// only that item's requests.
import { api } from '../api/client';

export const liveUpdate = $state({ on: false, last: null as string | null });

export async function afterSave(): Promise<void> {
  if (!liveUpdate.on) return;
  const status = await api.evalStatus();
  if (status.running || !status.form) return;
  try {
    await api.startEval(status.form);
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a one-off timestamp string
    liveUpdate.last = new Date().toLocaleTimeString();
  } catch {
    // A run that cannot start (no models any more) leaves the table as it is.
  }
}
