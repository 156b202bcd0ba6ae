// Asks before unsaved work is left behind: closing or reloading the tab (the browser's own
// question, beforeunload), and following a link of the console (its routes are #-links, so a click
// on one is caught before the route changes and confirmed).
import { useEffect } from 'react';

export function useLeaveGuard(active: boolean, question: string) {
  useEffect(() => {
    if (!active) return;
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    const click = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = (event.target as Element | null)?.closest?.('a[href]');
      if (!link || link.getAttribute('target') === '_blank') return;
      const href = link.getAttribute('href')!;
      if (
        href === location.hash ||
        (!href.startsWith('#') && new URL(href, location.href).pathname === location.pathname && !new URL(href, location.href).hash)
      )
        return;
      if (!window.confirm(question)) {
        event.preventDefault();
        event.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [active, question]);
}
