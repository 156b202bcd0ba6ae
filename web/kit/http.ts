// The fetch wrapper both web apps call the service through: the service's address, and every
// refusal (an RFC 9457 problem document) or network failure (status 0) thrown as one ApiError.
// Each app adds only its own credentials (the console a bearer token, the portal a cookie and a
// CSRF header).

/** An RFC 9457 problem document, or a stand-in for a network failure (status 0). */
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

/** The service lives where an app is served from, minus `/console/…` or `/portal/…` (so BASE_PATH needs no setting). */
export const apiBase = location.pathname.replace(/\/(console|portal)(\/.*)?$/, '');

let onUnauthenticated: (() => void) | undefined;
/** What happens when a call is answered 401 (the token or session ended): back to sign in. */
export const setUnauthenticatedHandler = (handler: () => void) => {
  onUnauthenticated = handler;
};

export interface RequestOptions {
  headers?: Record<string, string>;
  /** JSON or CSV text, or a file (an uploaded PDF). */
  body?: string | Blob;
  credentials?: RequestCredentials;
  /** A 401 that is expected (is anyone signed in?): no call of the unauthenticated handler. */
  quiet401?: boolean;
  /** The problem a network failure is reported with. */
  networkProblem?: Record<string, unknown>;
}

/** One call to the service: the answer's JSON, or an ApiError. */
export async function request<T>(method: string, url: string, options: RequestOptions = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  } catch {
    throw new ApiError(0, options.networkProblem ?? {});
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
