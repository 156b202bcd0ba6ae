// Calls to the service: the session's token, the base path, problem documents as ApiError.

/** An RFC 9457 problem document, or a stand-in for a network failure. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Record<string, unknown>;
  constructor(status: number, problem: Record<string, unknown>) {
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
  /** Field keys a refusal names: `errors[].field` and any array of strings among the extensions. */
  fieldKeys(): string[] {
    const keys = new Set<string>();
    const errors = this.problem.errors;
    if (Array.isArray(errors)) {
      for (const e of errors) {
        const field = (e as { field?: unknown }).field;
        if (typeof field === 'string') keys.add(field.replace(/^\/?data[./]/, '').replace(/^\//, ''));
      }
    }
    for (const [name, value] of Object.entries(this.problem)) {
      if (name === 'errors' || !Array.isArray(value)) continue;
      for (const item of value) {
        if (typeof item === 'string') keys.add(item);
        else if (item && typeof item === 'object' && typeof (item as { fieldKey?: unknown }).fieldKey === 'string') {
          keys.add((item as { fieldKey: string }).fieldKey);
        }
      }
    }
    return [...keys];
  }
}

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

/** The API lives where the app is served from, minus `/console/…` (so BASE_PATH needs no setting). */
export const apiBase = location.pathname.replace(/\/console(\/.*)?$/, '');

let onUnauthenticated: (() => void) | undefined;
export const setUnauthenticatedHandler = (handler: () => void) => {
  onUnauthenticated = handler;
};

/** A body sent as it is, with its media type (a file for an import route), rather than as JSON. */
export class RawBody {
  readonly type: string;
  readonly text: string;
  readonly headers: Record<string, string>;
  constructor(type: string, text: string, headers: Record<string, string> = {}) {
    this.type = type;
    this.text = text;
    this.headers = headers;
  }
}

export async function call<T>(method: string, path: string, body?: unknown, token = tokenStore.get()): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiBase + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': body instanceof RawBody ? body.type : 'application/json' } : {}),
        ...(body instanceof RawBody ? body.headers : {}),
      },
      ...(body !== undefined ? { body: body instanceof RawBody ? body.text : JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, { title: 'Network error', detail: 'The service does not answer. Check that it is running, then retry.' });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const problem = (json && typeof json === 'object' ? json : { detail: text || response.statusText }) as Record<string, unknown>;
    if (response.status === 401 && onUnauthenticated) onUnauthenticated();
    throw new ApiError(response.status, problem);
  }
  return json as T;
}

const enc = encodeURIComponent;
export const qs = (params: Record<string, string | number | boolean | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string | number | boolean][];
  return entries.length ? `?${entries.map(([k, v]) => `${k}=${enc(String(v))}`).join('&')}` : '';
};

