// The readers of one environment variable each, for config.ts: a bad value is a ConfigError that
// names the variable.

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.variable = variable;
  }
}

export type Env = Record<string, string | undefined>;

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

const durationUnits: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in seconds: `3600`, `90s`, `15m`, `24h`, `7d`. */
export function duration(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d{1,9})([smhd]?)$/.exec(raw);
  if (!match) throw new ConfigError(name, `must be a duration such as 3600, 90s, 15m, 24h or 7d, got "${raw}"`);
  const seconds = Number(match[1]) * durationUnits[match[2]!]!;
  if (seconds < min || seconds > max) throw new ConfigError(name, `must be between ${min} s and ${max} s, got ${seconds} s`);
  return seconds;
}

export function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a URL: "${raw}" (expected http://collector:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL (OTLP over HTTP; gRPC is not supported)');
  return raw;
}
