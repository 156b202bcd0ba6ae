// What an import file may hold, checked on its bytes as they arrive, before any row is handled:
// - a line (NDJSON) or a CSV record (which may span lines inside quotes) of at most
//   MAX_RECORD_BYTES: a line that never ends is refused once it passes the limit, so a reader never
//   holds more than that of it (413, naming the line and the data row);
// - UTF-8 only: a byte sequence that is not UTF-8 is refused (400, naming the line) instead of
//   being read as U+FFFD, which would store something other than what was sent;
// - at most `maxBytes` in all (413).
// The check keeps a few numbers of state whatever the input: memory stays flat.
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { AppError } from '../../domain/errors.ts';

/** Longest line or CSV record of an import file, in bytes (1 MiB). */
export const MAX_RECORD_BYTES = 1024 * 1024;

export interface InputLimits {
  /** CSV: a line break inside double quotes does not end the record. */
  quoted: boolean;
  /** The file has a header line (CSV): data rows are numbered from the record after it. */
  header: boolean;
  /** Longest record; undefined for no limit (XML, where a whole document may be one line). */
  maxRecordBytes?: number;
  /** Largest file. */
  maxBytes?: number;
  /** Named in problems: "the CSV", "the statement". */
  what?: string;
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/** The running check of one file's bytes; push each chunk in order, then end(). */
export class InputCheck {
  private readonly limits: InputLimits;
  /** The line being read, from 1. */
  line = 1;
  /** Records with content so far (the one being read included). */
  private records = 0;
  private recordBytes = 0;
  private recordHasContent = false;
  private inQuotes = false;
  /** UTF-8: continuation bytes still expected, and the range the next one must be in. */
  private need = 0;
  private lo = 0x80;
  private hi = 0xbf;
  bytes = 0;

  constructor(limits: InputLimits) {
    this.limits = limits;
  }

  /** The data row of the record being read: 1 for the first after a header (CSV), or the first line (NDJSON). */
  private get row(): number {
    const record = this.records + 1;
    return this.limits.header ? record - 1 : record;
  }

  push(chunk: Uint8Array): void {
    const { maxRecordBytes, quoted } = this.limits;
    this.bytes += chunk.length;
    if (this.limits.maxBytes !== undefined && this.bytes > this.limits.maxBytes) {
      throw new AppError('payload-too-large', `${this.limits.what ?? 'The file'} is larger than ${this.limits.maxBytes} bytes`, {
        extensions: { limit: this.limits.maxBytes },
      });
    }
    let { line, recordBytes, recordHasContent, inQuotes, need, lo, hi } = this;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (need > 0) {
        if (b < lo || b > hi) {
          this.line = line;
          throw this.notUtf8();
        }
        need--;
        lo = 0x80;
        hi = 0xbf;
      } else if (b >= 0x80) {
        if (b >= 0xc2 && b <= 0xdf) need = 1;
        else if (b === 0xe0) {
          need = 2;
          lo = 0xa0;
        } else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) need = 2;
        else if (b === 0xed) {
          need = 2;
          hi = 0x9f;
        } else if (b === 0xf0) {
          need = 3;
          lo = 0x90;
        } else if (b >= 0xf1 && b <= 0xf3) need = 3;
        else if (b === 0xf4) {
          need = 3;
          hi = 0x8f;
        } else {
          this.line = line;
          throw this.notUtf8();
        }
      }
      if (b === LF) {
        line++;
        if (!inQuotes) {
          if (recordHasContent) this.records++;
          recordBytes = 0;
          recordHasContent = false;
          continue;
        }
      } else if (b === QUOTE && quoted) inQuotes = !inQuotes;
      if (!recordHasContent && b !== 0x20 && b !== 0x09 && b !== CR && b !== LF) recordHasContent = true;
      recordBytes++;
      if (maxRecordBytes !== undefined && recordBytes > maxRecordBytes) {
        Object.assign(this, { line, recordBytes, recordHasContent, inQuotes });
        throw this.tooLong();
      }
    }
    Object.assign(this, { line, recordBytes, recordHasContent, inQuotes, need, lo, hi });
  }

  /** At the end of the file: a UTF-8 sequence must not be cut short. */
  end(): void {
    if (this.need > 0) throw this.notUtf8();
  }

  private notUtf8(): AppError {
    const detail = `${this.limits.what ?? 'The file'} is not valid UTF-8 at line ${this.line}`;
    return new AppError('validation', detail, {
      errors: [{ in: 'body', field: `line ${this.line}`, detail: 'is not valid UTF-8' }],
      extensions: { line: this.line },
    });
  }

  private tooLong(): AppError {
    const limit = this.limits.maxRecordBytes!;
    const what = this.limits.quoted ? 'record' : 'line';
    const detail = `Data row ${this.row} (line ${this.line}) is longer than ${limit} bytes, the longest ${what} an import reads`;
    return new AppError('payload-too-large', detail, {
      errors: [{ in: 'body', field: `row ${this.row}`, detail: `is longer than ${limit} bytes` }],
      extensions: { row: this.row, line: this.line, limit },
    });
  }
}

/** The bytes of `input`, checked (InputCheck) on their way through: a stream for the CLI's files. */
export function checkedStream(input: Readable, limits: InputLimits): Readable {
  const check = new InputCheck(limits);
  const transform = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      try {
        check.push(chunk);
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        check.end();
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
  input.on('error', (err) => transform.destroy(err));
  return input.pipe(transform);
}

/** An import body held in a file of its own until it has been handled. */
export interface Spooled {
  path: string;
  bytes: number;
  /** The file from the start (a stream each time). */
  open(): Readable;
  /** Removes the file; safe to call twice. */
  remove(): Promise<void>;
}

/**
 * Writes `input` to a temporary file, checking it on the way (InputCheck). The upload is then read
 * as fast as the client sends it, whatever the time the import takes, and a file that breaks a
 * limit is refused before any of it is handled: nothing of it is stored. On a refusal the input is
 * left unread (the caller closes the connection) and the file is removed.
 */
export async function spool(input: Readable, limits: InputLimits): Promise<Spooled> {
  const dir = await mkdtemp(join(tmpdir(), 'dealflow-import-'));
  const path = join(dir, 'body');
  const remove = () => rm(dir, { recursive: true, force: true });
  const check = new InputCheck(limits);
  const file = await open(path, 'w');
  try {
    // Events rather than for-await: leaving a for-await loop destroys the stream, and destroying a
    // request destroys its socket before the refusal can be sent.
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      let ended = false;
      const finish = (err?: unknown) => {
        if (settled) return;
        settled = true;
        input.off('data', onData);
        input.pause();
        if (err === undefined) resolve();
        else reject(err);
      };
      const onData = (chunk: Buffer) => {
        try {
          check.push(chunk);
        } catch (err) {
          finish(err);
          return;
        }
        input.pause();
        file.write(chunk).then(() => {
          if (!settled) input.resume();
        }, finish);
      };
      input.on('data', onData);
      input.once('end', () => {
        ended = true;
        try {
          check.end();
          finish();
        } catch (err) {
          finish(err);
        }
      });
      input.once('error', finish);
      input.once('close', () => {
        if (!ended) finish(new AppError('validation', 'The upload ended before the whole body arrived'));
      });
    });
  } catch (err) {
    await file.close().catch(() => {});
    await remove();
    throw err;
  }
  await file.close();
  return { path, bytes: check.bytes, open: () => createReadStream(path), remove };
}
