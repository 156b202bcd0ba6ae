// The lines the first start prints under "Try it": shell lines that paste and run as printed, with
// the real admin token, the same variables ($BASE, $TOKEN) the examples of the README and docs/ use.

/** Single quotes for the shell; tokens and URLs hold no quote, but a BASE_PATH might. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function tryLines(url: string, token: string, demo: boolean): string[] {
  return [
    'Try it (paste these lines into a shell; the README examples use the same $BASE and $TOKEN):',
    `  export BASE=${quoted(url)} TOKEN=${quoted(token)}`,
    '  curl -fsS -H "Authorization: Bearer $TOKEN" "$BASE/whoami"',
    ...(demo ? ['  curl -fsS -H "Authorization: Bearer $TOKEN" "$BASE/deals/deal/demo/all-investor-workflows?limit=5"'] : []),
  ];
}
