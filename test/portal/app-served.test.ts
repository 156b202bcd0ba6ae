// The investor portal's bundle (web/portal/dist, built by npm install) is served at
// ${BASE_PATH}/portal/ like the console: index.html revalidated, hashed assets cached for good.
// Both apps' HTML and assets carry a Content-Security-Policy without 'unsafe-inline', and their
// built index.html has no inline script or style for it to block.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, startApp } from '../support/app.ts';

const base = '/kong/core/api/gateway';

/** The policy's directives by name. */
function directives(header: unknown): Map<string, string[]> {
  assert.equal(typeof header, 'string', 'a Content-Security-Policy header');
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function assertStrictPolicy(header: unknown, what: string) {
  const policy = directives(header);
  assert.doesNotMatch(String(header), /unsafe-inline|unsafe-eval/, what);
  assert.deepEqual(policy.get('script-src'), ["'self'"], `${what}: script-src`);
  assert.deepEqual(policy.get('style-src'), ["'self'"], `${what}: style-src`);
  assert.deepEqual(policy.get('default-src'), ["'self'"], `${what}: default-src`);
  assert.deepEqual(policy.get('img-src'), ["'self'", 'data:'], `${what}: img-src`);
  assert.deepEqual(policy.get('connect-src'), ["'self'"], `${what}: connect-src`);
  assert.deepEqual(policy.get('frame-ancestors'), ["'none'"], `${what}: frame-ancestors`);
  assert.deepEqual(policy.get('base-uri'), ["'none'"], `${what}: base-uri`);
}

describe('the investor portal app is served', () => {
  const t = startApp({ env: { BASE_PATH: base } });

  test('index.html at /portal/ without a session, revalidated on every load, under the policy', async () => {
    const response = await client(t.app, undefined, base).get('/portal/');
    assert.equal(response.status, 200, 'web/portal/dist is missing: run npm run build:web');
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.text, /<div id="root">/);
    assert.match(response.text, /investor portal/);
    assert.equal(response.headers['cache-control'], 'no-cache');
    assertStrictPolicy(response.headers['content-security-policy'], 'portal index.html');
  });

  test('/portal redirects to /portal/', async () => {
    const response = await client(t.app, undefined, base).get('/portal?x=1');
    assert.equal(response.status, 301);
    assert.equal(response.headers.location, `${base}/portal/?x=1`);
  });

  test('hashed assets are referenced relatively, cached for good, under the policy', async () => {
    const html = (await client(t.app, undefined, base).get('/portal/')).text;
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="\.\/(assets\/[^"]+\.css)"/.exec(html)?.[1];
    assert.ok(script && style, 'index.html references its script and style sheet relatively');
    for (const path of [script, style]) {
      const asset = await client(t.app, undefined, base).get(`/portal/${path}`);
      assert.equal(asset.status, 200, path);
      assert.match(String(asset.headers['cache-control']), /immutable/);
      assertStrictPolicy(asset.headers['content-security-policy'], path);
    }
  });

  test('unknown files under /portal/ are 404', async () => {
    assert.equal((await client(t.app, undefined, base).get('/portal/nothing-here.js')).status, 404);
  });
});

describe('the Content-Security-Policy of the web apps', () => {
  const t = startApp({ env: { BASE_PATH: base } });

  for (const app of ['console', 'portal']) {
    test(`${app}: the policy allows no inline script or style, and the built index.html has none`, async () => {
      const response = await client(t.app, undefined, base).get(`/${app}/`);
      assert.equal(response.status, 200);
      assertStrictPolicy(response.headers['content-security-policy'], `${app} index.html`);
      const html = response.text;
      // Every <script> has a src; no <style> element, no style="" attribute, no on…="" handler.
      for (const tag of html.match(/<script\b[^>]*>/g) ?? []) assert.match(tag, /\bsrc=/, `${app}: inline script ${tag}`);
      assert.doesNotMatch(html, /<style\b/i, `${app}: a <style> element`);
      assert.doesNotMatch(html, /\sstyle=/i, `${app}: a style attribute`);
      assert.doesNotMatch(html, /\son[a-z]+=/i, `${app}: an inline event handler`);
    });
  }

  test("the API's JSON answers are not given the web apps' policy", async () => {
    const response = await client(t.app, undefined, base).get('/healthz');
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-security-policy'], undefined);
  });
});
