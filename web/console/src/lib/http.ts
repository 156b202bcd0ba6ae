// Calls to the service through the shared fetch wrapper (web/kit/http.ts), authenticated one of two
// ways (`setAuth`): a pasted API key (Authorization: Bearer, how the first admin signs in), or a
// passkey's session cookie, the console's door (${BASE_PATH}/console/api/…, every write with the
// session's X-CSRF-Token). Every call goes through `call` or `download`, so the switch is here once.
import { ApiError, apiBase, request } from '../../../kit/http.ts';

export { ApiError, apiBase, setUnauthenticatedHandler } from '../../../kit/http.ts';

const TOKEN_KEY = 'dealflow.console.token';
// The key the token had before the app took the name console: read once, then moved.
const OLD_TOKEN_KEY = 'dealflow.backOffice.token';
for (const storage of [sessionStorage, localStorage]) {
  const old = storage.getItem(OLD_TOKEN_KEY);
  if (old !== null && storage.getItem(TOKEN_KEY) === null) storage.setItem(TOKEN_KEY, old);
  storage.removeItem(OLD_TOKEN_KEY);
}

/**
 * The token lives in this tab's sessionStorage, or, when the person chose "keep me signed in on
 * this device", in localStorage (shared by every tab). Sign out clears both.
 */
export const tokenStore = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY),
  set: (token: string, remember = false) => {
    sessionStorage.setItem(TOKEN_KEY, token);
    if (remember) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  },
  remembered: () => localStorage.getItem(TOKEN_KEY) !== null,
  clear: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_KEY);
  },
};

/** A body sent as it is, with its media type (a file for an import route), rather than as JSON. */
export class RawBody {
  readonly type: string;
  readonly text: string | Blob;
  readonly headers: Record<string, string>;
  constructor(type: string, text: string | Blob, headers: Record<string, string> = {}) {
    this.type = type;
    this.text = text;
    this.headers = headers;
  }
}

/** The console's door: its sign-in routes, and behind the session cookie the whole API again. */
export const doorBase = `${apiBase}/console/api`;

/** How calls authenticate: the token of tokenStore, or the session cookie with its CSRF token. */
export type Auth = { kind: 'token' } | { kind: 'cookie'; csrfToken: string };
let auth: Auth = { kind: 'token' };
export const setAuth = (next: Auth) => {
  auth = next;
};

const READS = new Set(['GET', 'HEAD']);

/** Where a call goes and what proves who sends it. `token` asks for that key whatever the mode (checking a pasted one). */
function authOf(method: string, token?: string): { base: string; headers: Record<string, string>; credentials?: RequestCredentials } {
  if (token === undefined && auth.kind === 'cookie') {
    return { base: doorBase, credentials: 'same-origin', headers: READS.has(method) ? {} : { 'x-csrf-token': auth.csrfToken } };
  }
  const key = token ?? tokenStore.get();
  return { base: apiBase, headers: key ? { authorization: `Bearer ${key}` } : {} };
}

const networkProblem = { title: 'Network error', detail: 'The service does not answer. Check that it is running, then retry.' };

export function call<T>(method: string, path: string, body?: unknown, options: { token?: string; quiet401?: boolean } = {}): Promise<T> {
  const { base, headers, credentials } = authOf(method, options.token);
  return request<T>(method, base + path, {
    ...(credentials ? { credentials } : {}),
    ...(options.quiet401 ? { quiet401: true } : {}),
    headers: {
      ...headers,
      ...(body !== undefined ? { 'content-type': body instanceof RawBody ? body.type : 'application/json' } : {}),
      ...(body instanceof RawBody ? body.headers : {}),
    },
    ...(body !== undefined ? { body: body instanceof RawBody ? body.text : JSON.stringify(body) } : {}),
    networkProblem,
  });
}

/** A call to the door's sign-in routes (no key; the cookie, and on writes its CSRF token when signed in). */
export function doorCall<T>(method: string, path: string, body?: unknown, options: { quiet401?: boolean } = {}): Promise<T> {
  return request<T>(method, doorBase + path, {
    credentials: 'same-origin',
    ...(options.quiet401 ? { quiet401: true } : {}),
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(!READS.has(method) && auth.kind === 'cookie' ? { 'x-csrf-token': auth.csrfToken } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    networkProblem,
  });
}

const enc = encodeURIComponent;
export const qs = (params: Record<string, string | number | boolean | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string | number | boolean][];
  return entries.length ? `?${entries.map(([k, v]) => `${k}=${enc(String(v))}`).join('&')}` : '';
};

/**
 * Saves a file the service answers (a deal's document) under `fileName`: fetched with the console's
 * token or cookie (a plain link would not send the token), then handed to the browser as a download.
 */
export async function download(path: string, fileName: string): Promise<void> {
  const { base, headers, credentials } = authOf('GET');
  const response = await fetch(base + path, { headers, ...(credentials ? { credentials } : {}) });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({ detail: response.statusText }))) as Record<string, unknown>;
    throw new ApiError(response.status, problem);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: fileName });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
