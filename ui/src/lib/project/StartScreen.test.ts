import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, waitFor } from '@testing-library/svelte';

const { roleChoices } = vi.hoisted(() => ({ roleChoices: vi.fn() }));
vi.mock('../api/client', () => ({
  api: { roleChoices: (...a: unknown[]) => roleChoices(...a) },
  asApiError: (e: { code: string; message: string }) => e,
}));
vi.mock('@tauri-apps/plugin-dialog', () => ({ open: vi.fn(), save: vi.fn() }));

import StartScreen from './StartScreen.svelte';

afterEach(cleanup);

const project = { path: '/p.assay', name: 'p', items: 3, datasets: [] };
const info = { version: '0', recent: [], user: null, project };

describe('Start screen', () => {
  it('shows a role the store would refuse disabled, with its reason, and asks again for each name', async () => {
    roleChoices.mockImplementation(async (name: string) => [
      { role: 'annotator', why_not: null },
      { role: 'auditor', why_not: name === 'eve' ? 'eve is new here: only the project\u2019s owner can make someone an auditor' : null },
      { role: 'researcher', why_not: null },
    ]);
    const { getByTestId, queryByTestId } = render(StartScreen, { info, user: { name: 'lead', role: 'auditor' }, project, onReady: vi.fn() });
    await waitFor(() => expect(roleChoices).toHaveBeenCalledWith('lead'));
    expect((getByTestId('role-auditor') as HTMLInputElement).disabled).toBe(false);
    expect(queryByTestId('role-why-auditor')).toBeNull();
    await fireEvent.input(getByTestId('user-name'), { target: { value: 'eve' } });
    await waitFor(() => expect((getByTestId('role-auditor') as HTMLInputElement).disabled).toBe(true));
    expect(getByTestId('role-why-auditor').textContent).toContain('owner');
    // The chosen role moves off the one that cannot be taken.
    expect((getByTestId('role-annotator') as HTMLInputElement).checked).toBe(true);
  });
});

describe('Start screen when the roles cannot be read', () => {
  it('says so instead of showing the choices as if all were open', async () => {
    roleChoices.mockRejectedValue({ code: 'io', message: 'disk gone' });
    const { findByRole } = render(StartScreen, { info, user: { name: 'lead', role: 'auditor' }, project, onReady: vi.fn() });
    expect((await findByRole('alert')).textContent).toContain('disk gone');
  });
});
