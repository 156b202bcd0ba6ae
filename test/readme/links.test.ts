// Links between the Markdown pages (README.md and docs/**) lead somewhere: every relative link names a
// file of the checkout, and every #anchor a heading of its page, by the code host's slug rules
// (lower case; letters, digits, spaces, hyphens and underscores kept, the rest dropped; spaces become
// hyphens; a repeated heading gets -1, -2, …). Links to other sites are not followed.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, test } from 'node:test';
import { markdownPages, root } from './pages.ts';

/** The text of a page without its fenced blocks and inline code, where brackets are not links. */
function prose(markdown: string): string[] {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  return lines.map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && line.trim().startsWith(fence)) fence = undefined;
      return '';
    }
    if (open) {
      fence = open[1];
      return '';
    }
    return line.replace(/`+[^`]*`+/g, '');
  });
}

/** The code host's anchor of a heading's text. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs, numbered when repeated. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const raw = markdown.split('\n');
  prose(markdown).forEach((line, i) => {
    // Headings are read from the raw line: inline code in a heading is part of its anchor.
    const heading = line === '' ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw[i]!)?.[1];
    if (heading === undefined) return;
    const base = slug(heading.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  });
  return found;
}

/** The relative link targets of a page, with the line each is on. */
export function links(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(markdown).forEach((line, i) => {
    for (const match of line.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      out.push({ line: i + 1, target });
    }
  });
  return out;
}

describe('links between the Markdown pages', () => {
  test('the slug rules', () => {
    assert.equal(slug('Bulk moves, dry runs, imports and exports'), 'bulk-moves-dry-runs-imports-and-exports');
    assert.equal(slug("The investor's side: form implementations"), 'the-investors-side-form-implementations');
    assert.equal(slug('POST /portfolio/transactions/subscriptions (admin)'), 'post-portfoliotransactionssubscriptions-admin');
    assert.deepEqual([...anchors('# A\n\n## A\n\n```sh\n# not a heading\n```\n## `code` here')], ['a', 'a-1', 'code-here']);
  });

  const pages = markdownPages();
  for (const page of pages) {
    test(`${page}: every relative link and anchor leads somewhere`, () => {
      const text = readFileSync(join(root, page), 'utf8');
      const dead: string[] = [];
      for (const { line, target } of links(text)) {
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const file = path === '' ? join(root, page) : normalize(join(dirname(join(root, page)), decodeURIComponent(path)));
        if (!file.startsWith(root) || !existsSync(file)) {
          dead.push(`${page}:${line}: ${target} (no file ${relative(root, file)})`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (!file.endsWith('.md') || statSync(file).isDirectory()) {
          dead.push(`${page}:${line}: ${target} (an anchor into a file that is not a Markdown page)`);
          continue;
        }
        if (!anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) {
          dead.push(`${page}:${line}: ${target} (no heading #${anchor} in ${relative(root, file)})`);
        }
      }
      assert.deepEqual(dead, [], `dead links:\n${dead.join('\n')}`);
    });
  }
});
