// The back-office app's bundle (web/dist, built by npm install) is served at ${BASE_PATH}/app/
// without a token; the API behind it still wants one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, expectProblem, startApp } from '../support/app.ts';

describe('the back-office app is served', () => {
  const base = '/kong/core/api/gateway';
  const t = startApp({ env: { BASE_PATH: base } });

  test('index.html at /app/ without a token, revalidated on every load', async () => {
    const response = await client(t.app, undefined, base).get('/app/');
    assert.equal(response.status, 200, 'web/dist is missing: run npm run build:web');
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.text, /<div id="root">/);
    assert.equal(response.headers['cache-control'], 'no-cache');
  });

  test('/app redirects to /app/', async () => {
    const response = await client(t.app, undefined, base).get('/app');
    assert.ok([301, 302].includes(response.status));
    assert.equal(response.headers.location, `${base}/app/`);
  });

  test('hashed assets are referenced relatively and cached for good', async () => {
    const html = (await client(t.app, undefined, base).get('/app/')).text;
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'index.html references its script relatively');
    const asset = await client(t.app, undefined, base).get(`/app/${script}`);
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
  });

  test('unknown files under /app/ are 404, and the API still needs a token', async () => {
    assert.equal((await client(t.app, undefined, base).get('/app/nothing-here.js')).status, 404);
    expectProblem(await client(t.app, undefined, base).get('/back-office/deals'), 401);
  });
});
