// SigV4 signing of one Bedrock request (reference §5.1: `/model/{modelId}/converse`, service `bedrock`). The signing
// libraries are imported on first use: a worker whose model is not on Bedrock never loads them (~100 ms of import).
import type { AwsAuth } from '../protocol/frames.js';

export const BEDROCK_SIGNING_SERVICE = 'bedrock';

interface Signer {
  sign(
    request: {
      method: string;
      protocol: string;
      hostname: string;
      port?: number;
      path: string;
      query: Record<string, string>;
      headers: Record<string, string>;
      body: string;
    },
    options: { signingDate: Date },
  ): Promise<{ headers: Record<string, string> }>;
}

/** One signer per credentials object: a turn signs every call with the same keys. */
const signers = new WeakMap<AwsAuth, Promise<Signer>>();

async function loadSigner(auth: AwsAuth): Promise<Signer> {
  const [{ SignatureV4 }, { Sha256 }] = await Promise.all([
    import('@smithy/signature-v4'),
    import('@aws-crypto/sha256-js'),
  ]);
  const credentials = {
    accessKeyId: auth.access_key_id,
    secretAccessKey: auth.secret_access_key,
    ...(auth.session_token ? { sessionToken: auth.session_token } : {}),
  };
  return new SignatureV4({ service: BEDROCK_SIGNING_SERVICE, region: auth.region, credentials, sha256: Sha256 });
}

function signerFor(auth: AwsAuth): Promise<Signer> {
  let signer = signers.get(auth);
  if (signer === undefined) {
    signer = loadSigner(auth);
    signers.set(auth, signer);
  }
  return signer;
}

/**
 * The headers to send: `headers` plus `host`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (with a
 * session token) and `authorization: AWS4-HMAC-SHA256 Credential=…/<region>/bedrock/aws4_request, SignedHeaders=…,
 * Signature=…`. Signed per attempt: the date is part of the signature.
 */
export async function signAwsRequest(
  auth: AwsAuth,
  url: URL,
  body: string,
  headers: Record<string, string>,
  now: Date,
): Promise<Record<string, string>> {
  const signer = await signerFor(auth);
  const request = {
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port !== '' ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...headers, host: url.host, 'content-type': 'application/json' },
    body,
  };
  const signed = await signer.sign(request, { signingDate: now });
  return { ...signed.headers };
}
