// An upload held in a temporary file before it is read (operations/import-readers/limits.ts). A
// refusal closes the connection: the rest of the upload is not read, and a client still sending
// learns of the refusal instead of waiting for its end.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { type InputLimits, spool, type Spooled } from '../operations/import-readers/limits.ts';

export async function spoolUpload(request: FastifyRequest, reply: FastifyReply, limits: InputLimits): Promise<Spooled> {
  try {
    return await spool(request.body as Readable, limits);
  } catch (err) {
    reply.header('Connection', 'close');
    throw err;
  }
}
