// Plain fetch calls to a service started as a process, for the crash checks: each answer with its
// status, headers, text and parsed JSON (undefined when the body is not JSON), and `must`, which
// throws naming the step when the status is not one of those expected.
import type { Instance } from './service.ts';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export function caller(service: Instance, token: string) {
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): Promise<Answer> => {
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };
  const must = (what: string, answer: Answer, ...statuses: number[]) => {
    if (!statuses.includes(answer.status)) throw new Error(`${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
  };
  return { call, must };
}
