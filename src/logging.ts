// One log format for every process: the service (Fastify's logger) and `dealflow worker` both write
// pino's JSON lines to stdout with these options, so one collector reads both.
import { pino, type LoggerOptions } from 'pino';
import type { LogLevel } from './config.ts';

export function logOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    // Tokens and secrets never reach the logs.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.token', '*.secret'], censor: '[redacted]' },
  };
}

/** A logger for processes without Fastify (the worker). */
export const createLogger = (level: LogLevel) => pino(logOptions(level));
