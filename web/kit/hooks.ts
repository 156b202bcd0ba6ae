import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';

export type Loadable<T> = { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ready'; value: T };

/** Runs `load` whenever `deps` change; `reload` runs it again. Stale answers are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loadable<T>, () => void] {
  const [state, setState] = useState<Loadable<T>>({ status: 'loading' });
  const [version, setVersion] = useState(0);
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setState((previous) => (previous.status === 'ready' && version > 0 ? previous : { status: 'loading' }));
    load().then(
      (value) => mine === generation.current && setState({ status: 'ready', value }),
      (error: unknown) => mine === generation.current && setState({ status: 'error', error }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return [state, reload];
}

/**
 * A form's sending state, for FormStatus: `run(action)` is busy while the action runs, clears the
 * last outcome, and ends with what the action returns (its words of success, or nothing) or with
 * what it throws (the refusal). `refuse` sets the form's own refusal (a check before sending, or
 * one the action finds; FormStatus shows it over an earlier success), or takes it back with
 * undefined; `clear` forgets the whole outcome when the form changes.
 */
export function useSubmission(initialError?: unknown) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(initialError);
  const [done, setDone] = useState<ReactNode>();
  const clear = useCallback(() => {
    setDone(undefined);
    setError(undefined);
  }, []);
  const run = useCallback(async (action: () => Promise<ReactNode | void>) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const said = await action();
      if (said !== undefined) setDone(said);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run, refuse: setError, clear };
}

/**
 * The ref of a <dialog> shown as a modal while its component is mounted: the page behind is inert
 * (focus stays in the dialog), Escape closes it, and when it goes focus returns to the control
 * that opened it.
 */
export function useModal() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => {
      element?.close();
      opener?.focus();
    };
  }, []);
  return dialog;
}

/** The location hash as a route: `#/deals/d1/graph` → ['deals', 'd1', 'graph']. */
export function useHashRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const navigate = (...parts: string[]) => {
  location.hash = `#/${parts.map(encodeURIComponent).join('/')}`;
};

/** A link's href for a route: `href('deals', id)` → `#/deals/<id>`. */
export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

/**
 * The query part of the hash (`#/deals/d1?currency=EUR`) as search params, and a setter that
 * replaces it (no new history entry), so a filtered view is a URL that can be shared.
 */
export function useHashQuery(): [URLSearchParams, (next: URLSearchParams) => void] {
  const read = () => new URLSearchParams(location.hash.split('?')[1] ?? '');
  const [params, setParams] = useState(read);
  useEffect(() => {
    const onChange = () => setParams(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  const update = useCallback((next: URLSearchParams) => {
    const path = location.hash.split('?')[0] || '#/';
    const query = next.toString();
    history.replaceState(null, '', `${location.pathname}${location.search}${path}${query ? `?${query}` : ''}`);
    setParams(new URLSearchParams(query));
  }, []);
  return [params, update];
}

/** A value that settles `delay` ms after it stops changing (search boxes). */
export function useDebounced<T>(value: T, delay = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/** Whether a media query matches, following changes (a phone held sideways, a window resized). */
/**
 * Scrolls a row that scrolls sideways on its own (the phone's sections and a deal's tabs) just
 * enough to bring its item matching `selector` (the current one) into view, with a little of the
 * next one showing; the page itself does not move. Again whenever `key` changes.
 */
export function useCurrentInView(row: RefObject<HTMLElement | null>, selector: string, key: unknown) {
  useEffect(() => {
    const element = row.current;
    const current = element?.querySelector<HTMLElement>(selector);
    if (!element || !current || element.scrollWidth <= element.clientWidth) return;
    const [outer, inner] = [element.getBoundingClientRect(), current.getBoundingClientRect()];
    if (inner.left < outer.left) element.scrollLeft -= outer.left - inner.left + 24;
    else if (inner.right > outer.right) element.scrollLeft += inner.right - outer.right + 24;
  }, [row, selector, key]);
}

/** The console's phone: 720 px and narrower (the style sheets' breakpoint). */
export const PHONE = '(max-width: 720px)';

export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const onChange = () => setMatches(list.matches);
    onChange();
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

const REQUESTS_CHANGED = 'dealflow:edit-requests-changed';
/** Tell the rest of the console that edit requests changed (a decision, a new request): the Inbox badge reloads. */
export const announceRequestsChanged = () => window.dispatchEvent(new Event(REQUESTS_CHANGED));
/** A number that grows each time edit requests change in this tab: a dependency for loads. */
export function useRequestsVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    window.addEventListener(REQUESTS_CHANGED, bump);
    return () => window.removeEventListener(REQUESTS_CHANGED, bump);
  }, []);
  return version;
}
