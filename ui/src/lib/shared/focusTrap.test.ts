import { afterEach, describe, expect, it } from 'vitest';
import { trapFocus } from './focusTrap';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('a dialog keeps the focus', () => {
  it('takes it on opening, cycles Tab inside and gives it back on closing', () => {
    document.body.innerHTML = '<button id="outside">outside</button><div id="d"><button id="a">a</button><input id="b" /><button id="c" disabled>c</button></div>';
    const outside = document.getElementById('outside')!;
    outside.focus();
    const dialog = document.getElementById('d')!;
    // jsdom lays nothing out: every element counts as shown.
    for (const e of dialog.querySelectorAll<HTMLElement>('*')) e.getClientRects = () => [{}] as unknown as DOMRectList;
    const trap = trapFocus(dialog);
    expect(document.activeElement?.id).toBe('a');
    const tab = (shiftKey = false) => {
      const ev = new KeyboardEvent('keydown', { key: 'Tab', shiftKey, bubbles: true, cancelable: true });
      document.activeElement!.dispatchEvent(ev);
      return ev.defaultPrevented;
    };
    document.getElementById('b')!.focus();
    expect(tab()).toBe(true); // from the last control back to the first
    expect(document.activeElement?.id).toBe('a');
    expect(tab(true)).toBe(true); // and backwards
    expect(document.activeElement?.id).toBe('b');
    trap.destroy();
    expect(document.activeElement?.id).toBe('outside');
  });
});
