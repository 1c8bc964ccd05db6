// Failed calls the person must see: a view that could not load shows what failed and why
// (FailureBar), never an empty list that looks like "nothing to do".
import { asApiError } from './api/client';

export type Failure = { id: number; what: string; code: string; message: string; retry?: () => void };

export const failures = $state<{ items: Failure[] }>({ items: [] });
let nextId = 0;

/** Records that `what` failed with `e` (with a way to try again, where it makes sense); the
 * same `what` failing again replaces its entry. */
export function report(what: string, e: unknown, retry?: () => void): void {
  const { code, message } = asApiError(e);
  failures.items = [...failures.items.filter((f) => f.what !== what), { id: nextId++, what, code, message, retry }].slice(-5);
}

/** A `.catch` handler: reports the failure and gives the view `fallback` meanwhile. */
export function failed<T>(what: string, fallback: T, retry?: () => void): (e: unknown) => T {
  return (e) => {
    report(what, e, retry);
    return fallback;
  };
}

/** Forgets the failure of `what` (it worked this time). */
export function cleared(what: string): void {
  failures.items = failures.items.filter((f) => f.what !== what);
}

export function dismiss(id: number): void {
  failures.items = failures.items.filter((f) => f.id !== id);
}
