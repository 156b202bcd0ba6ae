// Reads any of the four official lists, telling them apart by their first bytes: the EU's <export>,
// OFAC's <sdnList>, the UN's <CONSOLIDATED_LIST>, or OFSI's CSV ("Last Updated" or a "Group ID"
// header).

import { AppError, invalid } from '../../domain/errors.ts';
import type { SanctionsEntry, SanctionsSource } from '../../domain/sanctions-entry.ts';
import { EU_RECORDS, euEntry } from './eu.ts';
import { OFAC_RECORDS, ofacEntry } from './ofac.ts';
import { UN_RECORDS, unEntry } from './un.ts';
import { ukEntries } from './uk.ts';
import { xmlRecords } from './xml-records.ts';

export function detectSanctionsSource(head: string): SanctionsSource | undefined {
  if (/<(\w+:)?export[\s>]/.test(head)) return 'eu';
  if (/<(\w+:)?sdnList[\s>]/.test(head)) return 'ofac';
  if (/<CONSOLIDATED_LIST[\s>]/.test(head)) return 'un';
  if (/^\uFEFF?"?Last Updated/.test(head) || head.includes('Group ID')) return 'uk';
  return undefined;
}

async function* toStrings(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of chunks) yield typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

export interface SanctionsListReading {
  readonly source: SanctionsSource;
  readonly entries: AsyncGenerator<SanctionsEntry>;
}

/** Peeks at the first 4 KB to name the list, then streams its entries; undefined for another file. */
export async function readSanctionsList(chunks: AsyncIterable<string | Uint8Array>): Promise<SanctionsListReading | undefined> {
  const iterator = readable(toStrings(chunks))[Symbol.asyncIterator]();
  let head = '';
  const seen: string[] = [];
  while (head.length < 4096) {
    const next = await iterator.next();
    if (next.done === true) break;
    seen.push(next.value);
    head += next.value;
  }
  const source = detectSanctionsSource(head);
  if (source === undefined) return undefined;
  async function* replay(): AsyncGenerator<string> {
    yield* seen;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
  }
  return { source, entries: readable(entriesOf(source, replay())) };
}

/** A file that breaks off, is not UTF-8, is not well-formed or breaks a record's bounds: a 400 naming why, not a failure of the service. */
async function* readable<T>(items: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (err) {
    if (err instanceof AppError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw invalid([{ in: 'body', field: 'file', detail: why.slice(0, 300) }], `The list file cannot be read: ${why.slice(0, 300)}`);
  }
}

async function* entriesOf(source: SanctionsSource, chunks: AsyncIterable<string>): AsyncGenerator<SanctionsEntry> {
  switch (source) {
    case 'eu':
      for await (const r of xmlRecords(chunks, EU_RECORDS)) yield euEntry(r);
      return;
    case 'ofac':
      for await (const r of xmlRecords(chunks, OFAC_RECORDS)) yield ofacEntry(r);
      return;
    case 'un':
      for await (const r of xmlRecords(chunks, UN_RECORDS)) yield unEntry(r);
      return;
    case 'uk':
      yield* ukEntries(chunks);
      return;
  }
}
