// Calls to the service with the session's token, through the shared fetch wrapper (web/kit/http.ts).
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

export function call<T>(method: string, path: string, body?: unknown, token = tokenStore.get()): Promise<T> {
  return request<T>(method, apiBase + path, {
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': body instanceof RawBody ? body.type : 'application/json' } : {}),
      ...(body instanceof RawBody ? body.headers : {}),
    },
    ...(body !== undefined ? { body: body instanceof RawBody ? body.text : JSON.stringify(body) } : {}),
    networkProblem: { title: 'Network error', detail: 'The service does not answer. Check that it is running, then retry.' },
  });
}

const enc = encodeURIComponent;
export const qs = (params: Record<string, string | number | boolean | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string | number | boolean][];
  return entries.length ? `?${entries.map(([k, v]) => `${k}=${enc(String(v))}`).join('&')}` : '';
};

/**
 * Saves a file the service answers (a deal's document) under `fileName`: fetched with the console's
 * token, which a plain link would not send, then handed to the browser as a download.
 */
export async function download(path: string, fileName: string, token = tokenStore.get()): Promise<void> {
  const response = await fetch(apiBase + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({ detail: response.statusText }))) as Record<string, unknown>;
    throw new ApiError(response.status, problem);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: fileName });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
