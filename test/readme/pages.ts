// The Markdown pages of the checkout (README.md and docs/**) and their fenced blocks, for the tests
// that run them and check their links.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../../', import.meta.url).pathname;

export interface CodeBlock {
  /** Line of the opening fence in its page (1-based). */
  line: number;
  /** The fence's language tag (`sh`, `ts`, `json`, …; empty when none). */
  lang: string;
  code: string;
  marker?: 'skip' | 'replaced';
}
export type ShellBlock = CodeBlock;

/** Every fenced block of a Markdown text, with the readme-test marker before each. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1]!) && l.trim() === fence[1]);
    const close = end === -1 ? lines.length : end;
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const marker = /^<!--\s*readme-test:\s*(skip|replaced)\b/.exec(lines[k] ?? '')?.[1] as CodeBlock['marker'];
    blocks.push({ line: i + 1, lang: fence[2]!, code: lines.slice(i + 1, close).join('\n'), ...(marker ? { marker } : {}) });
    i = close;
  }
  return blocks;
}

/** The ```sh (or bash, shell) blocks of a Markdown text. */
export function shellBlocks(markdown: string): ShellBlock[] {
  return codeBlocks(markdown).filter((b) => ['sh', 'bash', 'shell'].includes(b.lang));
}

/** README.md and every Markdown page under docs/, as paths relative to the checkout. */
export function markdownPages(): string[] {
  const docs = (readdirSync(join(root, 'docs'), { recursive: true }) as string[])
    .filter((p) => p.endsWith('.md'))
    .map((p) => `docs/${p}`)
    .sort();
  return ['README.md', ...docs];
}
