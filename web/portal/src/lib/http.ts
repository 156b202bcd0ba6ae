// Calls to the portal's API (${BASE_PATH}/portal/api/…): the session cookie goes along by itself
// (same origin); every write carries the session's CSRF token. Refusals arrive as ApiError.

/** An RFC 9457 problem document, or a stand-in for a network failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Record<string, unknown>;
  constructor(status: number, problem: Record<string, unknown>) {
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** The API lives under the app's own address: …/portal/ → …/portal/api (so BASE_PATH needs no setting). */
export const apiBase = `${location.pathname.replace(/\/portal(\/.*)?$/, '')}/portal/api`;

let csrfToken: string | undefined;
/** The signed-in session's CSRF token (undefined when signed out). */
export const setCsrfToken = (token: string | undefined) => {
  csrfToken = token;
};

let onUnauthenticated: (() => void) | undefined;
/** What happens when a call is answered 401 (the session ended): back to sign in. */
export const setUnauthenticatedHandler = (handler: () => void) => {
  onUnauthenticated = handler;
};

export async function call<T>(method: string, path: string, body?: unknown, options: { quiet401?: boolean } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiBase + path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method !== 'GET' && method !== 'HEAD' && csrfToken ? { 'x-csrf-token': csrfToken } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, {});
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
    if (response.status === 401 && !options.quiet401) onUnauthenticated?.();
    throw new ApiError(response.status, problem);
  }
  return json as T;
}
