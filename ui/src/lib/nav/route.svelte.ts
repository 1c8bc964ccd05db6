// One navigation for the workspace: each view is a page with its own URL (`#/triage`,
// `#/items/42`), so back and forward work and the place survives a restart (the last route is
// kept per project). The open item rides along in the URL of whichever view opened it, so the
// editor returns to that view when closed.

export const VIEWS = ['items', 'evaluation', 'triage', 'review', 'filtering', 'team', 'models', 'settings', 'import'] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  view: View;
  item: number | null;
}

export const VIEW_LABELS: Record<View, string> = {
  items: 'Items',
  evaluation: 'Evaluation',
  triage: 'Triage',
  review: 'Review',
  filtering: 'Filtering',
  team: 'Team',
  models: 'Models and templates',
  settings: 'Settings',
  import: 'Import',
};

/** `#/view` or `#/view/ITEM`; anything else is the items view (an old bookmark, a typo). */
export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const view = (VIEWS as readonly string[]).includes(parts[0] ?? '') ? (parts[0] as View) : 'items';
  const n = Number(parts[1]);
  const item = parts[1] !== undefined && Number.isSafeInteger(n) && n > 0 ? n : null;
  return { view, item };
}

export function formatHash(r: Route): string {
  return r.item === null ? `#/${r.view}` : `#/${r.view}/${r.item}`;
}

const storageKey = (project: string) => `assay.route.${project}`;

export class Router {
  route = $state<Route>({ view: 'items', item: null });
  /** Views opened at least once: they stay mounted (hidden) so their state survives a switch. */
  visited = $state<View[]>(['items']);
  private project: string;

  constructor(project: string) {
    this.project = project;
  }

  /** Reads the URL, or the route saved for this project when the URL names none. */
  start(): () => void {
    const saved = (() => {
      try {
        return localStorage.getItem(storageKey(this.project));
      } catch {
        return null;
      }
    })();
    const initial = location.hash.length > 2 ? location.hash : saved ?? '#/items';
    this.apply(parseHash(initial));
    if (location.hash !== formatHash(this.route)) history.replaceState(null, '', formatHash(this.route));
    const onHash = () => this.apply(parseHash(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('hashchange', onHash);
      // Leaving the project (switching project or person): its item ids mean nothing to the
      // next one, which starts from its own saved route.
      history.replaceState(null, '', location.pathname + location.search);
    };
  }

  private apply(r: Route) {
    this.route = r;
    this.lastItem[r.view] = r.item;
    if (!this.visited.includes(r.view)) this.visited = [...this.visited, r.view];
    try {
      localStorage.setItem(storageKey(this.project), formatHash(r));
    } catch {
      // Private windows may refuse storage; the route then lives only in the URL.
    }
  }

  /** The item last open in each view, so coming back to a view finds it where it was left. */
  private lastItem: Partial<Record<View, number | null>> = {};

  /** Goes to a view (a history entry, so Back returns); `item` opens an item there, and
   * without one the view's last open item comes back. */
  go(view: View, item: number | null | undefined = undefined) {
    if (item === undefined) item = this.lastItem[view] ?? null;
    const next = formatHash({ view, item });
    if (location.hash === next) return;
    location.hash = next;
    // hashchange is asynchronous; the state follows at once so a caller can rely on it.
    this.apply({ view, item });
  }

  /** Opens an item in the current view (replacing, not stacking, history while browsing). */
  open(item: number | null) {
    const next = formatHash({ view: this.route.view, item });
    if (location.hash !== next) history.replaceState(null, '', next);
    this.apply({ view: this.route.view, item });
  }
}
