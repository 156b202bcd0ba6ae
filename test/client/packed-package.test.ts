// @dealflow/client as an integrator gets it: `npm pack`ed, installed from the tarball into a fresh
// project, typechecked there under nodenext and bundler resolution with --strict, and run on Node 20
// and Node 24 against the service on a real socket, with a dispatcher delivering its webhooks. The
// service is reached through a small HTTP front that hands each request to app.inject, so every
// answer is checked against openapi.json as in every test, and every request body's media type
// against the operation's requestBody, as a validating proxy would.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createDispatcher, type Dispatcher } from '../../src/operations/webhook-dispatcher.ts';
import { contract } from '../support/contract.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const fixtures = new URL('./consumer/', import.meta.url).pathname;
const MAX_INSTALLED_BYTES = 15 * 1024 * 1024;

/** Bytes of every file under a folder (symbolic links not followed). */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The system's Node 20 (npm scripts put Node 24 first on the PATH): the first `node` outside node_modules. */
function systemNode20(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (version.startsWith('v20.')) return candidate;
  }
  return undefined;
}

/** A socket in front of app.inject: answers are contract-checked by startTestApp, request bodies here. */
async function frontOf(t: TestApp, refused: string[]): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      const path = (request.url ?? '/').split('?')[0]!;
      if (body.length > 0) {
        const found = contract().operationOf(request.method ?? 'GET', path);
        const declared = found ? contract().document.paths[found.template][found.method.toLowerCase()]?.requestBody?.content : undefined;
        const mediaType = String(request.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim();
        if (!declared?.[mediaType]) refused.push(`${request.method} ${path}: a ${mediaType} body is not declared`);
      }
      try {
        const answer = await t.app.inject({
          method: request.method as 'GET',
          url: request.url ?? '/',
          headers: request.headers,
          ...(body.length > 0 ? { payload: body } : {}),
        });
        const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !['transfer-encoding', 'connection'].includes(name)));
        response.writeHead(answer.statusCode, headers as Record<string, string>).end(answer.rawPayload);
      } catch (err) {
        refused.push(`${request.method} ${path}: ${String(err)}`);
        response.writeHead(599).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('the packed client package (@dealflow/client)', () => {
  let dir: string;
  let project: string;
  let tarball: string;
  let installMs: number;
  let t: TestApp;
  let front: { server: Server; base: string };
  let dispatcher: Dispatcher;
  const refusedRequests: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dealflow-client-'));
    // The build the root postinstall made; pack it as a registry would get it.
    const packed = JSON.parse((await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: join(root, 'packages/client') })).stdout);
    tarball = join(dir, packed[0].filename);
    project = join(dir, 'consumer');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const started = Date.now();
    // Its one dependency comes from the npm cache when it is there (the root install put it there).
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project });
    installMs = Date.now() - started;
    copyFileSync(join(fixtures, 'consumer.ts'), join(project, 'consumer.ts'));
    // Kept as .txt in the checkout: it must not compile, and the project's typecheck reads test/.
    copyFileSync(join(fixtures, 'wrong.ts.txt'), join(project, 'wrong.ts'));

    t = await startTestApp();
    front = await frontOf(t, refusedRequests);
    dispatcher = createDispatcher({ db: t.database.db, pollMs: 100, timeoutMs: 5000 });
    dispatcher.start();
  });

  after(async () => {
    await dispatcher?.stop();
    front?.server.closeAllConnections();
    front?.server.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the tarball holds the build only, and installs in seconds to under 15 MB with openapi-fetch alone', (c) => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    assert.ok(
      files.every((f) => /^package\/(dist\/[\w.-]+\.(js|d\.ts)|package\.json|README\.md)$/.test(f)),
      files.join('\n'),
    );
    const installed = sizeOf(join(project, 'node_modules'));
    const packages = readdirSync(join(project, 'node_modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .flatMap((e) => (e.name.startsWith('@') ? readdirSync(join(project, 'node_modules', e.name)).map((n) => `${e.name}/${n}`) : [e.name]))
      .sort();
    c.diagnostic(
      `tarball ${statSync(tarball).size} bytes; installed ${installed} bytes (${(installed / 1024 / 1024).toFixed(2)} MiB) in ${installMs} ms; packages: ${packages.join(', ')}`,
    );
    assert.deepEqual(packages, ['@dealflow/client', 'openapi-fetch', 'openapi-typescript-helpers']);
    assert.ok(installed < MAX_INSTALLED_BYTES, `installed ${installed} bytes`);
  });

  test('a consumer typechecks with --strict under nodenext and bundler (TypeScript 7 and 5), with no casts', async () => {
    const source = readFileSync(join(project, 'consumer.ts'), 'utf8');
    assert.doesNotMatch(source.replace(/^\s*\/\/.*$/gm, ''), /\bas\s+(?!const\b)[A-Za-z{[]/, 'no casts');
    const base = {
      target: 'es2022',
      lib: ['es2022', 'dom'],
      strict: true,
      skipLibCheck: true,
      typeRoots: [join(root, 'node_modules/@types')],
      types: ['node'],
    };
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out' }, files: ['consumer.ts'] }),
    );
    writeFileSync(
      join(project, 'tsconfig.bundler.json'),
      JSON.stringify({ compilerOptions: { ...base, module: 'preserve', moduleResolution: 'bundler', noEmit: true }, files: ['consumer.ts'] }),
    );
    // TypeScript 7 also checks the package's declaration files (skipLibCheck off), then emits the program.
    for (const tsc of [join(root, 'node_modules/typescript5/bin/tsc'), join(root, 'node_modules/.bin/tsc')]) {
      const seven = !tsc.includes('typescript5');
      await run(tsc, ['-p', 'tsconfig.bundler.json', ...(seven ? ['--skipLibCheck', 'false'] : [])], { cwd: project });
      await run(tsc, ['-p', 'tsconfig.json', ...(seven ? ['--skipLibCheck', 'false'] : ['--noEmit'])], { cwd: project });
    }
    assert.ok(existsSync(join(project, 'out/consumer.js')), 'nodenext emitted the program');
  });

  test('a wrong member of a problem, or a status read as a string, fails to compile', async () => {
    writeFileSync(
      join(project, 'tsconfig.wrong.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2022', lib: ['es2022', 'dom'], module: 'nodenext', strict: true, noEmit: true, types: [] },
        files: ['wrong.ts'],
      }),
    );
    const result = await run(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.wrong.json'], { cwd: project }).then(
      () => assert.fail('wrong.ts compiled'),
      (err: { stdout: string }) => err.stdout,
    );
    assert.match(result, /wrong\.ts\(7,\d+\): error TS2339: Property 'missingFieldz' does not exist/);
    assert.match(result, /wrong\.ts\(8,\d+\): error TS2322: Type '[^']+' is not assignable to type 'string'/);
    assert.equal(
      result
        .trim()
        .split('\n')
        .filter((line) => /error TS/.test(line)).length,
      2,
      result,
    );
  });

  for (const [label, node] of [
    ['Node 24', process.execPath],
    ['Node 20', systemNode20()],
  ] as const) {
    test(`${label}: imports the package (ESM) and runs the program against the service, webhook verified`, {
      skip: node ? false : 'no Node 20 on the PATH',
    }, async () => {
      const version = execFileSync(node!, ['--version'], { encoding: 'utf8' }).trim();
      assert.match(version, label === 'Node 20' ? /^v20\./ : /^v2[4-9]\./);
      const env = { ...process.env, BASE: front.base, TOKEN: t.adminToken, RUN: `${version.replace(/\W/g, '')}-${process.pid}` };
      const { stdout } = await run(node!, ['out/consumer.js'], { cwd: project, env, timeout: 60_000 });
      const seen = JSON.parse(stdout.trim().split('\n').pop()!);
      assert.equal(seen.node, version);
      assert.deepEqual(seen.stepTypes, ['default', 'complete']);
      assert.deepEqual(seen.uploads, ['created', 'unchanged', 'unchanged'], 'a string, a Blob and a stream upload the same file');
      assert.equal(seen.status, 422);
      assert.equal(seen.requestIdMatches, true);
      assert.deepEqual(seen.missingFields, ['committed_amount']);
      assert.equal(seen.dryRun, true);
      assert.match(seen.movedTo, /\.commitment$/);
      assert.deepEqual(seen.webhook, { type: 'journey.step-entered', dealId: `pkg-${env.RUN}`, verified: true, forgedRefused: true });
      assert.deepEqual(refusedRequests, [], 'every request body is one its operation declares');
    });
  }

  test('verifyWebhook of the packed package: a real delivery holds, an altered, re-timed or foreign one does not', async () => {
    const { verifyWebhook, WebhookVerificationError } = await import(pathToFileURL(join(project, 'node_modules/@dealflow/client/dist/index.js')).href);
    const { signWebhook, newWebhookSecret } = await import('../../src/operations/webhook-signature.ts');
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'e1', type: 'journey.step-entered', timestamp: new Date().toISOString(), dealId: 'd', sequence: 1, data: {} });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'e1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, 'e1', timestamp, body) };
    assert.equal((await verifyWebhook(secret, headers, body)).type, 'journey.step-entered');
    assert.equal((await verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).id, 'e1');
    // Several signatures (a secret being rotated): any one that holds will do.
    assert.equal((await verifyWebhook(secret, { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` }, body)).id, 'e1');
    for (const [what, attempt] of [
      ['an altered body', () => verifyWebhook(secret, headers, body.replace('"d"', '"x"'))],
      ['another secret', () => verifyWebhook(newWebhookSecret(), headers, body)],
      ['another id', () => verifyWebhook(secret, { ...headers, 'webhook-id': 'e2' }, body)],
      ['a delivery six minutes old', () => verifyWebhook(secret, headers, body, { now: new Date((timestamp + 360) * 1000) })],
      ['no signature', () => verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, body)],
    ] as const) {
      await assert.rejects(attempt(), WebhookVerificationError, what);
    }
  });
});
