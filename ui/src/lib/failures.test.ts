import { describe, expect, it } from 'vitest';
import { dismiss, failed, failures, report } from './failures.svelte';

describe('failed calls', () => {
  it('are shown with what failed and why, and the view still gets its fallback', async () => {
    const queue = await Promise.reject({ code: 'sqlite', message: 'database is locked' }).catch(
      failed('Loading the review queue', [] as number[]),
    );
    expect(queue).toEqual([]);
    expect(failures.items.map((f) => [f.what, f.message])).toEqual([['Loading the review queue', 'database is locked']]);
    // The same call failing again replaces its entry; another adds one.
    report('Loading the review queue', new Error('offline'));
    report('Loading triage', 'boom');
    expect(failures.items.map((f) => f.message)).toEqual(['Error: offline', 'boom']);
    dismiss(failures.items[0].id);
    expect(failures.items.map((f) => f.what)).toEqual(['Loading triage']);
  });
});
