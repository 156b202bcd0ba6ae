// DOCUMENT_STORE and the S3_* variables: the database by default; an S3 bucket with its endpoint,
// region, credentials and addressing style; every bad or missing value refused at start, naming
// the variable, and the secret access key never echoed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const s3 = (env: Record<string, string> = {}) => ({ DOCUMENT_STORE: 's3', S3_BUCKET: 'fund-documents', ...env });

describe('the document store', () => {
  test('the database by default', () => {
    assert.deepEqual(loadConfig({}).documentStore, { kind: 'database' });
    assert.deepEqual(loadConfig({ DOCUMENT_STORE: 'database' }).documentStore, { kind: 'database' });
  });

  test('AWS S3: the bucket and its region, the SDK’s own credentials, the bucket in the host name', () => {
    assert.deepEqual(loadConfig(s3({ S3_REGION: 'eu-west-1' })).documentStore, {
      kind: 's3',
      s3: { bucket: 'fund-documents', region: 'eu-west-1', forcePathStyle: false },
    });
  });

  test('an S3-compatible server: its origin, us-east-1 and the bucket in the path unless told otherwise, static credentials', () => {
    const env = s3({ S3_ENDPOINT: 'http://minio.internal:9000/', S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', S3_SECRET_ACCESS_KEY: SECRET });
    assert.deepEqual(loadConfig(env).documentStore, {
      kind: 's3',
      s3: {
        endpoint: 'http://minio.internal:9000',
        bucket: 'fund-documents',
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: SECRET },
        forcePathStyle: true,
      },
    });
    const virtualHosts = loadConfig({ ...env, S3_FORCE_PATH_STYLE: 'false', S3_REGION: 'garage' }).documentStore;
    assert.deepEqual(virtualHosts.kind === 's3' && [virtualHosts.s3.forcePathStyle, virtualHosts.s3.region], [false, 'garage']);
  });

  const bad: [string, Record<string, string>][] = [
    ['DOCUMENT_STORE', { DOCUMENT_STORE: 'files' }],
    ['S3_BUCKET', { DOCUMENT_STORE: 's3', S3_REGION: 'eu-west-1' }],
    ['S3_BUCKET', { S3_BUCKET: 'fund-documents' }],
    ['S3_BUCKET', s3({ S3_BUCKET: 'Fund_Documents', S3_REGION: 'eu-west-1' })],
    ['S3_BUCKET', s3({ S3_BUCKET: 'ab', S3_REGION: 'eu-west-1' })],
    ['S3_REGION', s3()],
    ['S3_REGION', s3({ S3_REGION: 'EU West' })],
    ['S3_ENDPOINT', s3({ S3_ENDPOINT: 'minio:9000' })],
    ['S3_ENDPOINT', s3({ S3_ENDPOINT: 'ftp://minio.internal' })],
    ['S3_ENDPOINT', s3({ S3_ENDPOINT: 'https://s3.example.com/fund-documents' })],
    ['S3_ENDPOINT', s3({ S3_ENDPOINT: 'https://key:secret@s3.example.com' })],
    ['S3_SECRET_ACCESS_KEY', s3({ S3_REGION: 'eu-west-1', S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' })],
    ['S3_ACCESS_KEY_ID', s3({ S3_REGION: 'eu-west-1', S3_SECRET_ACCESS_KEY: SECRET })],
    ['S3_ACCESS_KEY_ID', s3({ S3_REGION: 'eu-west-1', S3_ACCESS_KEY_ID: 'AKIA EXAMPLE', S3_SECRET_ACCESS_KEY: SECRET })],
    ['S3_FORCE_PATH_STYLE', s3({ S3_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: 'yes' })],
  ];
  for (const [variable, env] of bad) {
    test(`a bad or missing ${variable} (${JSON.stringify(env)}) is refused, naming it`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(variable),
      );
    });
  }

  test('the secret access key is never in an error', () => {
    const secret = `${SECRET} with a space`;
    assert.throws(
      () => loadConfig(s3({ S3_REGION: 'eu-west-1', S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', S3_SECRET_ACCESS_KEY: secret })),
      (err: unknown) => err instanceof ConfigError && err.variable === 'S3_SECRET_ACCESS_KEY' && !err.message.includes(SECRET),
    );
  });

  test('the service does not start without its bucket: exit 1, naming the variable', () => {
    const result = spawnSync(process.execPath, ['bin/dealflow.js', 'serve'], {
      env: { ...process.env, DATA_DIR: 'memory://', DOCUMENT_STORE: 's3', S3_BUCKET: '' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /invalid configuration: S3_BUCKET: is needed with DOCUMENT_STORE=s3/);
  });
});
