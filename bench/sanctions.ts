// `node bench/sanctions.ts [--quick] [--investors N] [--entries N]`: sanctions screening in memory
// (domain/screening.ts), no database. Generates a list of 20,000 entries (quick: 2,000) from a
// seeded random source of name parts, builds the blocking index (timed), screens 100,000 investors
// (quick: 10,000) with random names (timed, with heap and RSS), then measures precision and recall
// on a labelled set: 2,000 variants of listed names (swapped word order, no diacritics, a
// transliteration, one typo, a title) that should hit, and 2,000 unlisted names that should not.
// Prints the figures with the load average.
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { SanctionsEntry } from '../src/domain/sanctions-entry.ts';
import { buildScreeningIndex, screenPerson } from '../src/domain/screening.ts';

const { values: args } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, investors: { type: 'string' }, entries: { type: 'string' } },
});
const ENTRIES = args.entries ? Number(args.entries) : args.quick ? 2_000 : 20_000;
const INVESTORS = args.investors ? Number(args.investors) : args.quick ? 10_000 : 100_000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const ONSETS = ['b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'sh', 'kh', 'ch', 'al', 'ab'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'á', 'é', 'ö', 'ü', 'ya'];
const word = () => {
  let w = '';
  const syllables = 2 + Math.floor(random() * 2);
  for (let i = 0; i < syllables; i++) w += pick(ONSETS) + pick(VOWELS);
  if (random() < 0.5) w += pick(['n', 'r', 'v', 'd', 'm', 'ov', 'ev', 'in']);
  return w[0]!.toUpperCase() + w.slice(1);
};
const fullName = () => Array.from({ length: 2 + Math.floor(random() * 2) }, word).join(' ');

const entries: SanctionsEntry[] = Array.from({ length: ENTRIES }, (_, i) => ({
  sourceId: String(i),
  subject: 'person',
  names: random() < 0.3 ? [fullName(), fullName()] : [fullName()],
  birthDates: random() < 0.6 ? [String(1940 + Math.floor(random() * 60))] : [],
  nationalities: [],
  programmes: ['BENCH'],
}));

const gcHeap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};
const heapBefore = gcHeap();
let started = performance.now();
const index = buildScreeningIndex(entries);
const indexMs = performance.now() - started;
const heapIndex = gcHeap() - heapBefore;

const investors = Array.from({ length: INVESTORS }, () => fullName());
started = performance.now();
let hitInvestors = 0;
for (const name of investors) if (screenPerson({ names: [name] }, index).length > 0) hitInvestors++;
const screenMs = performance.now() - started;

const LATIN_TO_CYRILLIC: Record<string, string> = {
  a: 'а',
  b: 'б',
  d: 'д',
  e: 'е',
  f: 'ф',
  g: 'г',
  i: 'и',
  k: 'к',
  l: 'л',
  m: 'м',
  n: 'н',
  o: 'о',
  p: 'п',
  r: 'р',
  s: 'с',
  t: 'т',
  u: 'у',
  v: 'в',
  z: 'з',
};
const strip = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '');
const variants: [string, (name: string) => string][] = [
  [
    'swapped',
    (n) => {
      const p = n.split(' ');
      return `${p.at(-1)}, ${p.slice(0, -1).join(' ')}`;
    },
  ],
  ['no diacritics', (n) => strip(n).toUpperCase()],
  ['transliterated', (n) => [...strip(n).toLowerCase()].map((c) => LATIN_TO_CYRILLIC[c] ?? c).join('')],
  [
    'typo',
    (n) => {
      const i = 3 + Math.floor(random() * (n.length - 4));
      return n.slice(0, i) + n[i + 1] + n[i] + n.slice(i + 2);
    },
  ],
  ['title', (n) => `Dr ${n}`],
];
const perKind = new Map<string, { hit: number; of: number }>();
let truePositives = 0;
let falseNegatives = 0;
for (let i = 0; i < 2000; i++) {
  const entry = entries[Math.floor(random() * entries.length)]!;
  const [kind, vary] = variants[i % variants.length]!;
  const hit = screenPerson({ names: [vary(pick(entry.names))] }, index).some((h) => h.entry === entry);
  const tally = perKind.get(kind) ?? { hit: 0, of: 0 };
  perKind.set(kind, { hit: tally.hit + (hit ? 1 : 0), of: tally.of + 1 });
  if (hit) truePositives++;
  else falseNegatives++;
}
let falsePositives = 0;
for (let i = 0; i < 2000; i++) if (screenPerson({ names: [fullName()] }, index).length > 0) falsePositives++;

log(
  `load average ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores, node ${process.version}`,
);
log(
  `list: ${ENTRIES} entries; index built in ${indexMs.toFixed(0)} ms, ${mb(heapIndex)} of heap${globalThis.gc ? '' : ' (run with --expose-gc for an exact figure)'}`,
);
log(
  `screened ${INVESTORS} investors in ${(screenMs / 1000).toFixed(2)} s (${((screenMs * 1000) / INVESTORS).toFixed(0)} µs each); ${hitInvestors} random names hit`,
);
log(`memory: heap ${mb(process.memoryUsage().heapUsed)}, rss ${mb(process.memoryUsage().rss)}`);
log(
  `labelled set: recall ${((100 * truePositives) / (truePositives + falseNegatives)).toFixed(1)} % (${truePositives}/${truePositives + falseNegatives}), precision ${((100 * truePositives) / (truePositives + falsePositives)).toFixed(1)} % (${falsePositives} of 2000 unlisted names hit)`,
);
for (const [kind, { hit, of }] of perKind) log(`  ${kind}: ${hit}/${of}`);
