import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';

const api = vi.hoisted(() => ({
  teamMembers: vi.fn(),
  teamInvite: vi.fn(),
  teamSetRole: vi.fn(),
  teamRevoke: vi.fn(),
}));
vi.mock('../api/client', () => ({
  api,
  asApiError: (e: { code: string; message: string }) => e,
}));

import TeamMembers from './TeamMembers.svelte';

afterEach(() => {
  cleanup();
  vi.resetAllMocks();
});

const seo = { name: 'seo', role: 'auditor', lead: true, active: 1, invited: 0 };
const kenji = { name: 'kenji', role: 'annotator', lead: false, active: 1, invited: 0 };

describe('Team members', () => {
  it('tells a member who is no lead why they see no members', async () => {
    api.teamMembers.mockRejectedValue({ code: 'unauthorized', message: 'aiko is not a lead' });
    const { findByTestId, queryByTestId } = render(TeamMembers);
    expect((await findByTestId('not-lead')).textContent).toContain('Only a lead');
    expect(queryByTestId('invite-form')).toBeNull();
  });

  it('invites, shows the link once, changes a role and revokes on a second click', async () => {
    api.teamMembers.mockResolvedValue([seo, kenji]);
    api.teamInvite.mockResolvedValue('assay-join:https://t:7443?invitation=a.b&pin=00');
    api.teamSetRole.mockResolvedValue(null);
    api.teamRevoke.mockResolvedValue(1);
    const { findAllByTestId, getByTestId, findByTestId } = render(TeamMembers);
    const rows = await findAllByTestId('member-row');
    expect(rows.map((r) => r.textContent)).toEqual([expect.stringContaining('seo(lead)'), expect.stringContaining('kenji')]);

    await fireEvent.input(getByTestId('invite-name'), { target: { value: 'mina' } });
    await fireEvent.submit(getByTestId('invite-form'));
    expect(((await findByTestId('invite-link')) as HTMLInputElement).value).toContain('assay-join:');
    expect(api.teamInvite).toHaveBeenCalledWith('mina', 'annotator', null);

    const roles = await findAllByTestId('member-role');
    await fireEvent.change(roles[1], { target: { value: 'researcher' } });
    expect(api.teamSetRole).toHaveBeenCalledWith('kenji', 'researcher');

    const revoke = (await findAllByTestId('member-revoke'))[1];
    await fireEvent.click(revoke);
    expect(api.teamRevoke).not.toHaveBeenCalled();
    expect(revoke.textContent).toContain("End kenji's access now");
    await fireEvent.click(revoke);
    expect(api.teamRevoke).toHaveBeenCalledWith('kenji');
  });

  it('shows the service refusing an action', async () => {
    api.teamMembers.mockResolvedValue([seo]);
    api.teamInvite.mockRejectedValue({ code: 'invalid', message: 'a member needs a name of 1 to 63 bytes' });
    const { getByTestId, findByRole } = render(TeamMembers);
    await fireEvent.input(getByTestId('invite-name'), { target: { value: 'x' } });
    await fireEvent.submit(getByTestId('invite-form'));
    expect((await findByRole('alert')).textContent).toContain('1 to 63 bytes');
  });
});
