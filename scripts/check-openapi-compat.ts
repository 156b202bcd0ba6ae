// `npm run check:openapi-compat` (CI): compares openapi.json with the last released document
// (openapi/released/<version>.json, the highest version there) using api-smart-diff, which sorts
// every difference into breaking, non-breaking and annotation changes. It fails when:
// - info.version is not semver, or is lower than the released one;
// - the document changed but info.version did not (a change integrators see gets a version);
// - a new version has no `## <version>` section in CHANGELOG.md;
// - a change is breaking and the version does not say so (a new major version; a new minor one
//   while the major is 0) or its CHANGELOG.md section has no `### Breaking` heading.
// To release: copy openapi.json to openapi/released/<info.version>.json.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Json = Record<string, any>;

export interface Compatibility {
  releasedVersion: string;
  currentVersion: string;
  breaking: string[];
  nonBreaking: number;
  failures: string[];
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;

export function parseVersion(version: string): [number, number, number] | undefined {
  const match = SEMVER.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

const compare = (a: [number, number, number], b: [number, number, number]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The lines of CHANGELOG.md under `## <version>` (up to the next `## `), or undefined. */
export function changelogSection(changelog: string, version: string): string | undefined {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^## \\[?${version.replace(/\./g, '\\.')}\\]?(\\s|$)`).test(line));
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

const withoutVersion = (doc: Json) => JSON.stringify({ ...doc, info: { ...doc.info, version: undefined } });

/** Every reason the current document may not ship against the released one; empty when it may. */
export async function checkCompatibility(released: Json, current: Json, changelog: string, releasedAs?: string): Promise<Compatibility> {
  const { apiDiff } = await import('api-smart-diff');
  // A released document is named by its version (1.0.0.json), which wins over what it says inside.
  const releasedVersion = releasedAs ?? String(released.info?.version);
  const currentVersion = String(current.info?.version);
  const failures: string[] = [];
  const diffs =
    withoutVersion(released) === withoutVersion(current)
      ? []
      : (apiDiff(released, current) as { type: string; action: string; path: (string | number)[]; description?: string }[]);
  // One line per operation (or component) and kind of change: the tool reports each member.
  const where = (path: (string | number)[]) => (path[0] === 'paths' ? `${String(path[2]).toUpperCase()} ${path[1]}` : path.slice(0, 3).join('.'));
  const breaking = [
    ...new Set(diffs.filter((d) => d.type === 'breaking').map((d) => `${where(d.path)}: ${d.description || `${d.action} ${d.path.slice(3).join('.')}`}`)),
  ];
  const nonBreaking = diffs.filter((d) => d.type !== 'breaking').length;
  const was = parseVersion(releasedVersion);
  const now = parseVersion(currentVersion);
  if (!now) failures.push(`info.version "${currentVersion}" is not semver (MAJOR.MINOR.PATCH)`);
  if (!was) failures.push(`the released document's info.version "${releasedVersion}" is not semver`);
  if (now && was) {
    const order = compare(now, was);
    if (order < 0) failures.push(`info.version ${currentVersion} is lower than the released ${releasedVersion}`);
    if (order === 0 && diffs.length > 0)
      failures.push(`the document changed (${diffs.length} differences) but info.version is still the released ${releasedVersion}`);
    if (order > 0) {
      const section = changelogSection(changelog, currentVersion);
      if (section === undefined) failures.push(`CHANGELOG.md has no "## ${currentVersion}" section`);
      if (breaking.length > 0) {
        const major = was[0] === 0 ? now[0] > 0 || now[1] > was[1] : now[0] > was[0];
        if (!major) failures.push(`${breaking.length} breaking changes, but ${releasedVersion} → ${currentVersion} is not a new major version`);
        if (section !== undefined && !/^### Breaking/m.test(section))
          failures.push(`${breaking.length} breaking changes, but CHANGELOG.md's ${currentVersion} section has no "### Breaking" heading`);
      }
    }
  }
  return { releasedVersion, currentVersion, breaking, nonBreaking, failures };
}

/** The released documents' versions, highest first. */
export function releasedVersions(dir: string): string[] {
  return readdirSync(dir)
    .map((name) => /^(.+)\.json$/.exec(name)?.[1])
    .filter((v): v is string => v !== undefined && parseVersion(v) !== undefined)
    .sort((a, b) => compare(parseVersion(b)!, parseVersion(a)!));
}

if (import.meta.main) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = `${root}openapi/released`;
  const latest = releasedVersions(dir)[0];
  if (!latest) throw new Error(`no released document in ${dir}`);
  const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Json;
  const result = await checkCompatibility(read(`${dir}/${latest}.json`), read(`${root}openapi.json`), readFileSync(`${root}CHANGELOG.md`, 'utf8'), latest);
  console.log(`openapi.json ${result.currentVersion} against the released ${latest}: ${result.breaking.length} breaking, ${result.nonBreaking} other changes`);
  for (const change of result.breaking.slice(0, 40)) console.log(`  breaking: ${change}`);
  if (result.breaking.length > 40) console.log(`  … and ${result.breaking.length - 40} more`);
  for (const failure of result.failures) console.error(`FAIL: ${failure}`);
  process.exit(result.failures.length === 0 ? 0 : 1);
}
