// A Svelte action for dialogs: focus moves into the dialog when it opens, Tab and Shift+Tab
// cycle through its controls without leaving it, and the focus returns to where it was when the
// dialog closes.
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(node: HTMLElement): HTMLElement[] {
  return [...node.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((e) => !e.closest('[inert]') && e.getClientRects().length > 0);
}

export function trapFocus(node: HTMLElement) {
  const before = document.activeElement as HTMLElement | null;
  if (!node.contains(document.activeElement)) {
    (focusables(node)[0] ?? node).focus();
  }
  function onKey(e: KeyboardEvent) {
    if (e.key !== 'Tab') return;
    const list = focusables(node);
    if (!list.length) {
      e.preventDefault();
      return;
    }
    const first = list[0];
    const last = list[list.length - 1];
    const at = document.activeElement;
    if (e.shiftKey && (at === first || !node.contains(at))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (at === last || !node.contains(at))) {
      e.preventDefault();
      first.focus();
    }
  }
  node.addEventListener('keydown', onKey);
  return {
    destroy() {
      node.removeEventListener('keydown', onKey);
      if (before && document.contains(before)) before.focus();
    },
  };
}
