// The breaking-change check of CI (scripts/check-openapi-compat.ts): the committed openapi.json
// passes against the last released document, and the check fails on each kind of undeclared
// change; the client package carries the document's version.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { changelogSection, checkCompatibility, releasedVersions } from '../../scripts/check-openapi-compat.ts';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => JSON.parse(readFileSync(root + path, 'utf8'));

const api = (version: string, assetId: object = { type: 'integer' }) => ({
  openapi: '3.1.0',
  info: { title: 't', version },
  paths: {
    '/assets/{assetId}': {
      get: {
        operationId: 'getAsset',
        parameters: [{ in: 'path', name: 'assetId', required: true, schema: assetId }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } } } } },
      },
    },
  },
});
const changelog = (version: string, breaking: boolean) =>
  `# Changelog\n\n## ${version}\n\n${breaking ? '### Breaking\n\n- assetId is a string\n' : '### Added\n\n- a path\n'}\n## 1.0.0\n\nFirst.\n`;
const withPath = (doc: ReturnType<typeof api>) => ({
  ...doc,
  paths: { ...doc.paths, '/more': { get: { operationId: 'more', responses: { 204: { description: 'none' } } } } },
});

describe('the breaking-change check', () => {
  test('the committed openapi.json against the last released document: passes, and the client package has its version', async () => {
    const latest = releasedVersions(`${root}openapi/released`)[0] ?? assert.fail('no released document');
    const current = read('openapi.json');
    const result = await checkCompatibility(read(`openapi/released/${latest}.json`), current, readFileSync(`${root}CHANGELOG.md`, 'utf8'), latest);
    assert.deepEqual(result.failures, []);
    assert.equal(read('packages/client/package.json').version, current.info.version);
  });

  test('an unchanged document passes; a changed one needs a new version and its changelog section', async () => {
    assert.deepEqual((await checkCompatibility(api('1.0.0'), api('1.0.0'), changelog('1.0.0', false))).failures, []);
    const added = await checkCompatibility(api('1.0.0'), withPath(api('1.0.0')), changelog('1.0.0', false));
    assert.match(added.failures.join('\n'), /the document changed .* but info.version is still the released 1\.0\.0/);
    assert.deepEqual((await checkCompatibility(api('1.0.0'), withPath(api('1.1.0')), changelog('1.1.0', false))).failures, []);
    assert.match((await checkCompatibility(api('1.0.0'), withPath(api('1.1.0')), changelog('1.2.0', false))).failures.join('\n'), /no "## 1\.1\.0" section/);
    assert.match((await checkCompatibility(api('1.0.0'), api('2'), changelog('2', false))).failures.join('\n'), /"2" is not semver/);
  });

  test('a breaking change needs a new major version and a Breaking heading', async () => {
    const before = api('1.0.0');
    const minor = await checkCompatibility(before, api('1.1.0', { type: 'string' }), changelog('1.1.0', true));
    assert.ok(minor.breaking.length > 0, 'a parameter of another type is breaking');
    assert.match(minor.failures.join('\n'), /breaking changes, but 1\.0\.0 → 1\.1\.0 is not a new major version/);
    const unsaid = await checkCompatibility(before, api('2.0.0', { type: 'string' }), changelog('2.0.0', false));
    assert.match(unsaid.failures.join('\n'), /section has no "### Breaking" heading/);
    assert.deepEqual((await checkCompatibility(before, api('2.0.0', { type: 'string' }), changelog('2.0.0', true))).failures, []);
    const removed = { ...before, info: { ...before.info, version: '1.0.1' }, paths: {} };
    assert.match((await checkCompatibility(before, removed, changelog('1.0.1', false))).breaking.join('\n'), /GET \/assets\/\{assetId\}/);
  });

  test('the changelog section of a version ends at the next version', () => {
    assert.equal(changelogSection(changelog('2.0.0', true), '2.0.0')?.includes('### Breaking'), true);
    assert.equal(changelogSection(changelog('2.0.0', true), '1.0.0')?.includes('### Breaking'), false);
    assert.equal(changelogSection(changelog('2.0.0', true), '3.0.0'), undefined);
  });
});
