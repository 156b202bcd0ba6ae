// Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KiB, a request not
// whole within REQUEST_TIMEOUT_MS, bytes that are not HTTP) got Fastify's own JSON body; they now
// get problem documents like every other error (found by the reliability suite).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../domain/errors.ts';
import { problemOf } from './problems.ts';

function kindOf(code: string | undefined): AppError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request-timeout', 'The request did not arrive whole within the time allowed (REQUEST_TIMEOUT_MS)');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers-too-large', 'The request headers are larger than 16 KiB');
    default:
      return new AppError('validation', 'The request is not well-formed HTTP/1.1');
  }
}

/** Fastify's `clientErrorHandler`: answers with a problem document, then closes the connection. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  // A reset connection has nobody left to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // No request was parsed, so none has an id yet: a new one, in the body and the header alike.
  const requestId = randomUUID();
  const problem = problemOf(kindOf(err.code), requestId);
  const body = JSON.stringify(problem);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
