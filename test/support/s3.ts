// An S3-compatible object store for the tests of DOCUMENT_STORE=s3: s3rver (an S3 server written in
// JavaScript that keeps its objects in a folder), started in this process on a free port of
// 127.0.0.1 with one empty bucket, in a temporary folder that goes when it stops. The tests read
// the bucket through the S3 API, as an operator's tools would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { type StartAppOptions, type StartedApp, startApp } from './app.ts';

export interface TestBucket {
  /** The settings that point the service at the bucket. */
  env: Record<string, string>;
  /** Every key in the bucket, sorted. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

const BUCKET = 'dealflow-documents';
/** s3rver's one account: it checks every request's signature against it. */
const ACCOUNT = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3(): Promise<TestBucket> {
  const directory = await mkdtemp(path.join(tmpdir(), 'dealflow-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: ACCOUNT,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    env: {
      DOCUMENT_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: BUCKET,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCOUNT.accessKeyId,
      S3_SECRET_ACCESS_KEY: ACCOUNT.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async keys() {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        ContinuationToken = page.NextContinuationToken;
      } while (ContinuationToken);
      return keys.sort();
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** startApp with DOCUMENT_STORE=s3 on a bucket of its own, started before the app and stopped after it. */
export function startAppWithS3(options: StartAppOptions = {}): { t: StartedApp; s3: () => TestBucket } {
  let bucket: TestBucket | undefined;
  const env = {} as Record<string, string>;
  // Read when the app starts, after the bucket has its port.
  for (const name of ['DOCUMENT_STORE', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE']) {
    Object.defineProperty(env, name, { enumerable: true, get: () => bucket!.env[name] });
  }
  const t = startApp({
    ...options,
    env: Object.defineProperties(env, Object.getOwnPropertyDescriptors(options.env ?? {})),
    beforeStart: async () => {
      bucket = await startS3();
    },
    afterClose: async () => {
      await bucket?.close();
    },
  });
  return { t, s3: () => bucket! };
}
