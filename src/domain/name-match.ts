// Name normalisation and similarity for sanctions screening.
//
// Algorithm: names are normalised (Unicode NFKD with combining marks removed, Latin letters that
// do not decompose and Cyrillic/Greek letters transliterated, case folded, punctuation to spaces,
// honorifics dropped) into tokens. Two names score the larger of
//   - Jaro-Winkler on the tokens sorted and joined (word order does not matter), and
//   - a token alignment: each token of the shorter name takes its best Jaro-Winkler partner in the
//     longer one, weighted by length, less 0.04 for each token of the longer name left over
//     (a middle name missing on one side costs little).
// Jaro-Winkler because personal names are short, their typos are mostly transpositions and single
// letters, and agreement at the start of a token weighs more, which is where names differ least;
// edit distance over-penalises short names and phonetic codes (Soundex, Metaphone) are built for
// English and cannot score. The alignment is quadratic in tokens, which are few per name.

const LATIN_EXTRA: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
};

const CYRILLIC: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  ґ: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  є: 'ye',
  ж: 'zh',
  з: 'z',
  и: 'i',
  і: 'i',
  ї: 'yi',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
};

const GREEK: Record<string, string> = {
  α: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  ζ: 'z',
  η: 'i',
  θ: 'th',
  ι: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
};

/** Honorifics and titles that say nothing about who a person is. */
const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'dr',
  'prof',
  'professor',
  'sir',
  'dame',
  'lord',
  'lady',
  'sheikh',
  'shaikh',
  'haji',
  'hajji',
  'mullah',
  'maulana',
  'general',
  'gen',
  'colonel',
  'col',
  'major',
  'captain',
  'capt',
  'herr',
  'frau',
  'mme',
  'mlle',
  'm',
  'jr',
  'sr',
  'phd',
]);

/** The name's tokens after normalisation, in their original order. */
export function nameTokens(name: string): string[] {
  const folded = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  let latin = '';
  for (const ch of folded) latin += LATIN_EXTRA[ch] ?? CYRILLIC[ch] ?? GREEK[ch] ?? ch;
  return latin
    .replace(/['’`ʼ]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0 && !TITLES.has(t));
}

/** The normalised name: tokens sorted, so word order does not matter. */
export function normaliseName(name: string): string {
  return nameTokens(name).sort().join(' ');
}

export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aMatched = new Array<boolean>(a.length).fill(false);
  const bMatched = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(b.length - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (bMatched[j] || a[i] !== b[j]) continue;
      aMatched[i] = true;
      bMatched[j] = true;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < a.length; i++) {
    if (!aMatched[i]) continue;
    while (!bMatched[k]) k++;
    if (a[i] !== b[k]) transpositions++;
    k++;
  }
  const jaro = (matches / a.length + matches / b.length + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

function tokenAlignment(a: readonly string[], b: readonly string[]): number {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length === 0) return 0;
  let weighted = 0;
  let weight = 0;
  for (const token of short) {
    let best = 0;
    for (const other of long) best = Math.max(best, jaroWinkler(token, other));
    weighted += best * token.length;
    weight += token.length;
  }
  return Math.max(0, weighted / weight - 0.04 * (long.length - short.length));
}

/** Similarity of two tokenised names, 0 to 1, symmetric; 1 for the same tokens in any order. */
export function tokenSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const sorted = jaroWinkler([...a].sort().join(' '), [...b].sort().join(' '));
  return Math.max(sorted, tokenAlignment(a, b));
}

export function nameSimilarity(a: string, b: string): number {
  return tokenSimilarity(nameTokens(a), nameTokens(b));
}
