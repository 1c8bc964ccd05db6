/** One thing the person can do from the command palette, with its shortcut; an action their
 * role or the state does not allow is listed disabled, with the reason. */
export type Action = {
  id: string;
  label: string;
  group: string;
  keys?: string;
  enabled: boolean;
  reason?: string;
  run: () => void | Promise<void>;
};

/** The actions whose label (or group, or keys) holds every word of `query`, in their order;
 * enabled ones first. */
export function filterActions(actions: Action[], query: string): Action[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = actions.filter((a) => {
    const text = `${a.label} ${a.group} ${a.keys ?? ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  return [...hits.filter((a) => a.enabled), ...hits.filter((a) => !a.enabled)];
}
