// Calls to the portal's API (${BASE_PATH}/portal/api/…): the session cookie goes along by itself
// (same origin); every write carries the session's CSRF token. Refusals arrive as ApiError, through
// the shared fetch wrapper (web/kit/http.ts).
import { apiBase, request } from '../../../kit/http.ts';

export { ApiError, setUnauthenticatedHandler } from '../../../kit/http.ts';

/** The portal's API: …/portal/ → …/portal/api. */
export const portalApiBase = `${apiBase}/portal/api`;

let csrfToken: string | undefined;
/** The signed-in session's CSRF token (undefined when signed out). */
export const setCsrfToken = (token: string | undefined) => {
  csrfToken = token;
};

export function call<T>(method: string, path: string, body?: unknown, options: { quiet401?: boolean } = {}): Promise<T> {
  return request<T>(method, portalApiBase + path, {
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' && method !== 'HEAD' && csrfToken ? { 'x-csrf-token': csrfToken } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...(options.quiet401 ? { quiet401: true } : {}),
  });
}

/** Sends a file as the body (its own type), with the session's CSRF token. */
export function callFile<T>(path: string, file: Blob): Promise<T> {
  return request<T>('POST', portalApiBase + path, {
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': file.type, ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}) },
    body: file,
  });
}
