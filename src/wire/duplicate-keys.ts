// I-JSON (RFC 7493 §2.3): member names within one object are unique. JSON.parse keeps the last of
// two equal names silently, so a proxy that keeps the first and this service would read different
// requests. This scanner runs over source text that JSON.parse has already accepted, so it only has
// to tell strings, keys and nesting apart; names are compared after unescaping ("a" and "\u0061"
// are the same name).

/** The first member name that occurs twice in one object, with its object's path; undefined if none. */
export function findDuplicateKey(text: string): { key: string; path: string } | undefined {
  // One frame per open object or array: an object's names so far, and whether a name comes next.
  const stack: { names: Set<string> | undefined; expectName: boolean; path: string; lastName: string }[] = [];
  const pathOf = () => {
    const top = stack.at(-1);
    return top ? top.path : '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
      const top = stack.at(-1);
      if (top?.names && top.expectName) {
        const name = JSON.parse(text.slice(start, i + 1)) as string;
        if (top.names.has(name)) return { key: name, path: top.path };
        top.names.add(name);
        top.expectName = false;
        top.lastName = name;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const parent = stack.at(-1);
      const segment = parent === undefined ? '' : parent.names ? parent.lastName : '[]';
      const path = parent === undefined ? '' : pathOf() === '' ? segment : `${pathOf()}.${segment}`;
      stack.push({ names: c === 0x7b ? new Set() : undefined, expectName: c === 0x7b, path, lastName: '' });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.names) top.expectName = true;
    }
  }
  return undefined;
}
