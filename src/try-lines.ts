// The plain lines a start prints before its JSON log: where the console, the API docs and the
// health check are, and on the first start the demo deal and, under "Try it", shell lines that
// paste and run as printed, with the real admin token and the variables ($BASE, $TOKEN) the
// documentation's examples use.

/** Single quotes for the shell; tokens and URLs hold no quote, but a BASE_PATH might. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function tryLines(url: string, token: string, demo: boolean): string[] {
  return [
    'Try it (paste these lines into a shell; the examples in README.md and docs/ use the same $BASE and $TOKEN):',
    `  export BASE=${quoted(url)} TOKEN=${quoted(token)}`,
    '  curl -fsS -H "Authorization: Bearer $TOKEN" "$BASE/whoami"',
    ...(demo ? ['  curl -fsS -H "Authorization: Bearer $TOKEN" "$BASE/deals/deal/demo/all-investor-workflows?limit=5"'] : []),
  ];
}

/**
 * Every start's lines; `token` and `demo` only on the start that created them. `publicUrl` is
 * PUBLIC_URL: the portal is printed there, not at the listening address, because passkeys and the
 * portal's writes are bound to that origin (at http://127.0.0.1 a portal set up for
 * http://localhost cannot sign anyone in).
 */
export function startLines(url: string, first: { token?: string; demo?: { dealId: string; investors: number } } = {}, publicUrl?: string): string[] {
  return [
    ...(first.demo ? [`Demo deal:   ${first.demo.dealId} (${first.demo.investors} investors)`] : []),
    `Console:     ${url}/console/`,
    ...(publicUrl ? [`Portal:      ${publicUrl}/portal/`] : []),
    `API docs:    ${url}/docs`,
    `Health:      ${url}/healthz`,
    ...(first.token ? tryLines(url, first.token, first.demo !== undefined) : []),
  ];
}
