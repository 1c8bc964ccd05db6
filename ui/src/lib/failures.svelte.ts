// Failed calls the person must see: a view that could not load shows what failed and why
// (FailureBar), never an empty list that looks like "nothing to do".
import { asApiError } from './api/client';

export type Failure = { id: number; what: string; message: string };

export const failures = $state<{ items: Failure[] }>({ items: [] });
let nextId = 0;

/** Records that `what` failed with `e`; the same `what` failing again replaces its entry. */
export function report(what: string, e: unknown): void {
  const message = asApiError(e).message;
  failures.items = [...failures.items.filter((f) => f.what !== what), { id: nextId++, what, message }].slice(-5);
}

/** A `.catch` handler: reports the failure and gives the view `fallback` meanwhile. */
export function failed<T>(what: string, fallback: T): (e: unknown) => T {
  return (e) => {
    report(what, e);
    return fallback;
  };
}

export function dismiss(id: number): void {
  failures.items = failures.items.filter((f) => f.id !== id);
}
