import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';

const { saved, saveTemplate } = vi.hoisted(() => {
  const saved = [
    { name: 'terse', version: 2, format: 'short_answer', body: 'v2 <b>{question}</b>', created_at: '2026-12-06T08:00:00Z' },
    { name: 'terse', version: 1, format: 'short_answer', body: 'v1 {question}', created_at: '2026-12-05T08:00:00Z' },
  ];
  const saveTemplate = vi.fn(async (form: { name: string }) => ({ label: `${form.name}@3`, version: 3, unchanged: false }));
  return { saved, saveTemplate };
});
vi.mock('../api/client', () => ({
  api: {
    templates: async () => ({
      saved,
      builtins: [{ name: 'suggest/screening', kind: 'suggestion', format: 'suggestion', body: 'Screen {question}' }],
    }),
    saveTemplate,
    whyNotTemplateName: async (n: string) => (n.includes('@') ? "'@' separates a template's name from its version" : null),
  },
  asApiError: (e: { message: string }) => e,
}));

import TemplatesPanel from './TemplatesPanel.svelte';

afterEach(cleanup);

describe('TemplatesPanel', () => {
  it('lists saved templates, shows any version as text, and saves a body as the next version', async () => {
    const v = render(TemplatesPanel, { visible: true });
    const row = await v.findByText('terse');
    expect(v.getByTestId('template-row').textContent).toContain('v2 · short_answer · 2 versions');
    await fireEvent.click(row);
    // A body is text, never markup.
    expect(v.getByTestId('template-body').textContent).toBe('v2 <b>{question}</b>');
    await fireEvent.change(v.getByTestId('template-version'), { target: { value: '1' } });
    expect(v.getByTestId('template-body').textContent).toBe('v1 {question}');

    // Nothing to save yet: the button says why.
    const save = v.getByTestId('template-save') as HTMLButtonElement;
    await fireEvent.click(v.getByTestId('template-edit'));
    expect((v.getByTestId('template-name') as HTMLInputElement).value).toBe('terse');
    expect((v.getByTestId('template-text') as HTMLTextAreaElement).value).toBe('v1 {question}');
    expect(save.disabled).toBe(false);
    await fireEvent.input(v.getByTestId('template-name'), { target: { value: '' } });
    expect(save.disabled).toBe(true);
    expect(v.getByTestId('template-why-not').textContent).toContain('Name the template');

    // The store's reason for a name it refuses, before anything is sent.
    await fireEvent.input(v.getByTestId('template-name'), { target: { value: 'a@b' } });
    await vi.waitFor(() => expect(v.getByTestId('template-why-not').textContent).toContain("'@' separates"));
    expect(save.disabled).toBe(true);

    // A built-in fills the body and the kind; saving sends the form and shows the label.
    await fireEvent.input(v.getByTestId('template-name'), { target: { value: 'screen-strict' } });
    await fireEvent.change(v.getByTestId('template-builtin'), { target: { value: 'suggest/screening' } });
    expect((v.getByTestId('template-text') as HTMLTextAreaElement).value).toBe('Screen {question}');
    expect((v.getByTestId('template-kind') as HTMLSelectElement).value).toBe('suggestion');
    await fireEvent.click(save);
    expect(saveTemplate).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'screen-strict', kind: 'suggestion', body: 'Screen {question}' }),
    );
    expect((await v.findByTestId('template-result')).textContent).toContain('Saved as screen-strict@3');
  });

  it('says how to begin when nothing is saved', async () => {
    saved.length = 0;
    const v = render(TemplatesPanel, { visible: true });
    expect((await v.findByTestId('templates-empty')).textContent).toContain('start from a built-in');
  });
});
