// A small JSON client over fetch for setting up fixtures and probing routes before they are loaded.

export interface Reply {
  status: number;
  body: any;
  text: string;
  /** The ETag header, when the answer has one. */
  etag?: string | undefined;
}

export function httpClient(baseUrl: string, token: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, body: json, text, etag: response.headers.get('etag') ?? undefined };
  };
  /** Like call, but throws unless the status is one of `ok`. */
  const must = async (ok: number[], method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const reply = await call(method, path, body, headers);
    if (!ok.includes(reply.status)) throw new Error(`${method} ${path}: expected ${ok.join('/')}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
    return reply;
  };
  return { call, must };
}

export type HttpClient = ReturnType<typeof httpClient>;

/** Runs `work` over `items` with at most `concurrency` in flight. */
export async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
