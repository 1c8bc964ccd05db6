import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import CommandPalette from './CommandPalette.svelte';
import type { Action } from './actions';

afterEach(cleanup);

describe('CommandPalette', () => {
  it('runs the action typed with Enter and never a disabled one', async () => {
    const triage = vi.fn();
    const sign = vi.fn();
    const onClose = vi.fn();
    const actions: Action[] = [
      { id: 'triage', group: 'Views', label: 'Triage queue', enabled: true, run: triage },
      { id: 'sign-off', group: 'Review', label: 'Sign off the item', enabled: false, reason: 'only an auditor signs off', run: sign },
    ];
    const { getByTestId, getAllByTestId } = render(CommandPalette, { actions, onClose });
    const input = getByTestId('palette-input');
    await fireEvent.input(input, { target: { value: 'sign' } });
    expect(getAllByTestId('palette-action').map((e) => e.textContent)).toEqual([expect.stringContaining('only an auditor signs off')]);
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(sign).not.toHaveBeenCalled();
    await fireEvent.input(input, { target: { value: 'triage' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(triage).toHaveBeenCalledOnce();
    expect(onClose).toHaveBeenCalled();
  });
});
