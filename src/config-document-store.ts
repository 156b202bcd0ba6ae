// Where the bytes of documents are kept (docs/reference/documents.md, "Storage"): in the database
// (DOCUMENT_STORE=database, the default) or in a bucket of an S3-compatible object store
// (DOCUMENT_STORE=s3, with the S3_* variables). The secret access key is never echoed in an error.
import { ConfigError, type Env, oneOf } from './config-env.ts';

export interface S3Config {
  /** S3_ENDPOINT: an S3-compatible server's origin (MinIO, Ceph, …); unset: AWS S3 itself, in `region`. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Unset: the AWS SDK's own credential chain (AWS_* variables, an instance or task role, web identity). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path (`https://host/bucket/key`) rather than in the host name (`https://bucket.host/key`). */
  forcePathStyle: boolean;
}

export type DocumentStoreConfig = { kind: 'database' } | { kind: 's3'; s3: S3Config };

// The AWS rules for a bucket created today: 3 to 63 lower-case letters, digits, dots and hyphens,
// beginning and ending with a letter or a digit.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;

function endpointOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('S3_ENDPOINT', `is not a URL: "${raw}" (expected https://s3.example.com or http://minio:9000)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('S3_ENDPOINT', 'must be an http(s) URL');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError('S3_ENDPOINT', 'must be an origin only (scheme, host, port), without path, query, fragment or credentials');
  }
  return url.origin;
}

export function documentStoreConfig(env: Env): DocumentStoreConfig {
  const kind = oneOf(env, 'DOCUMENT_STORE', ['database', 's3'] as const, 'database');
  const bucket = env.S3_BUCKET || undefined;
  if (kind === 'database') {
    // A bucket named while the contents go to the database is a setting half made: the operator
    // would back up a bucket that holds nothing.
    if (bucket !== undefined) throw new ConfigError('S3_BUCKET', 'is set but DOCUMENT_STORE is not s3: set DOCUMENT_STORE=s3, or unset S3_BUCKET');
    return { kind };
  }
  if (bucket === undefined) throw new ConfigError('S3_BUCKET', 'is needed with DOCUMENT_STORE=s3: the bucket that keeps the contents of documents');
  if (!BUCKET.test(bucket)) {
    throw new ConfigError(
      'S3_BUCKET',
      `must be 3 to 63 lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit, got "${bucket}"`,
    );
  }
  const rawEndpoint = env.S3_ENDPOINT || undefined;
  const endpoint = rawEndpoint === undefined ? undefined : endpointOf(rawEndpoint);
  // AWS needs the bucket's own region; an S3-compatible server mostly takes any, and us-east-1 is the usual one.
  const region = env.S3_REGION || (endpoint ? 'us-east-1' : undefined);
  if (region === undefined)
    throw new ConfigError('S3_REGION', 'is needed with DOCUMENT_STORE=s3 and no S3_ENDPOINT: the AWS region of the bucket, such as eu-west-1');
  if (!REGION.test(region)) throw new ConfigError('S3_REGION', `must be a region name such as eu-west-1, got "${region}"`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'is needed with the other: set both, or neither for the AWS SDK’s own credentials (an instance or task role)',
    );
  }
  if (accessKeyId !== undefined && !/^[\x21-\x7e]{1,128}$/.test(accessKeyId)) {
    throw new ConfigError('S3_ACCESS_KEY_ID', 'must be 1 to 128 printable characters without spaces');
  }
  if (secretAccessKey !== undefined && !/^[\x21-\x7e]{1,256}$/.test(secretAccessKey)) {
    throw new ConfigError('S3_SECRET_ACCESS_KEY', 'must be 1 to 256 printable characters without spaces');
  }
  const forcePathStyle = oneOf(env, 'S3_FORCE_PATH_STYLE', ['true', 'false'] as const, endpoint ? 'true' : 'false') === 'true';
  return {
    kind,
    s3: {
      ...(endpoint ? { endpoint } : {}),
      bucket,
      region,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      forcePathStyle,
    },
  };
}
