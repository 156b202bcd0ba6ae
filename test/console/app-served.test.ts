// The console's bundle (web/console/dist, built by npm install) is served at ${BASE_PATH}/console/
// without a token; the API behind it still wants one. The addresses it had before it took that
// one name redirect: the app at /app/ (301) and its read models under /back-office/ (308).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';

describe('the console app is served', () => {
  const base = '/kong/core/api/gateway';
  const t = startApp({ env: { BASE_PATH: base } });

  test('index.html at /console/ without a token, revalidated on every load', async () => {
    const response = await client(t.app, undefined, base).get('/console/');
    assert.equal(response.status, 200, 'web/console/dist is missing: run npm run build:web');
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.text, /<div id="root">/);
    assert.equal(response.headers['cache-control'], 'no-cache');
  });

  test('/console redirects to /console/', async () => {
    const response = await client(t.app, undefined, base).get('/console?x=1');
    assert.equal(response.status, 301);
    assert.equal(response.headers.location, `${base}/console/?x=1`);
  });

  test('hashed assets are referenced relatively and cached for good', async () => {
    const html = (await client(t.app, undefined, base).get('/console/')).text;
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'index.html references its script relatively');
    const asset = await client(t.app, undefined, base).get(`/console/${script}`);
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
  });

  test('unknown files under /console/ are 404, and the API still needs a token', async () => {
    assert.equal((await client(t.app, undefined, base).get('/console/nothing-here.js')).status, 404);
    expectProblem(await client(t.app, undefined, base).get('/console/deals'), 401);
  });

  test("the app's old address redirects for good (301), the query string kept", async () => {
    for (const [old, now] of [
      ['/app', '/console/'],
      ['/app?from=bookmark', '/console/?from=bookmark'],
      ['/app/', '/console/'],
      ['/app/index.html?x=1&y=2', '/console/index.html?x=1&y=2'],
    ] as const) {
      const response = await client(t.app, undefined, base).get(old);
      assert.equal(response.status, 301, old);
      assert.equal(response.headers.location, `${base}${now}`, old);
    }
  });

  test('the old read-model paths redirect to /console/ keeping the method (308), the query string kept, outside the document', async () => {
    const anyone = client(t.app, undefined, base);
    const get = await anyone.get('/back-office/deals/some-deal/board/cards?stepId=s%201&limit=5');
    assert.equal(get.status, 308);
    assert.equal(get.headers.location, `${base}/console/deals/some-deal/board/cards?stepId=s%201&limit=5`);
    const post = await anyone.post('/back-office/deals/some-deal/workflow/check?dry=1', { label: 'x' });
    assert.equal(post.status, 308);
    assert.equal(post.headers.location, `${base}/console/deals/some-deal/workflow/check?dry=1`);
    const paths = Object.keys((await anyone.get('/openapi.json')).body.paths);
    assert.deepEqual(
      paths.filter((p) => p.startsWith('/back-office') || p === '/app' || p.startsWith('/app/')),
      [],
    );
    assert.ok(paths.includes('/console/deals'));
  });

  test('following a redirect with a token reaches the same answer as the new path', async () => {
    const admin = client(t.app, t.adminToken, base);
    const old = await admin.get('/back-office/deals?x=1');
    const followed = await admin.get(String(old.headers.location).slice(base.length));
    assert.equal(followed.status, 200);
    assert.deepEqual(followed.body, (await admin.get('/console/deals')).body);
  });
});
