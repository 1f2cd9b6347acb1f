// Reading the credential a request presents: `Authorization: Bearer <API key or access token>` or
// `X-API-Key: <API key>`. A bearer value shaped like a JWT (three base64url segments separated by
// dots) is an OAuth access token; anything else is an API key (`svc_…`), which identity checks.
// X-API-Key carries API keys only.
import { ApiError } from './api-error.js';

export type PresentedCredential =
  | { kind: 'api_key'; value: string }
  | { kind: 'access_token'; value: string }
  | { kind: 'none' };

type Headers = Record<string, string | string[] | undefined>;

// Header and payload are never empty; the signature may be (an unsigned `alg: none` token is still
// a token, and identity refuses it as one).
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(value: string): boolean {
  return JWT_SHAPE.test(value);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function presentedCredential(headers: Headers): PresentedCredential {
  const authorization = single(headers.authorization)?.trim();
  const apiKey = single(headers['x-api-key'])?.trim();
  let fromAuthorization: string | undefined;
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw new ApiError(401, 'unauthorized', 'Authorization must be "Bearer <API key or access token>"');
    fromAuthorization = match[1];
  }
  if (fromAuthorization && apiKey && fromAuthorization !== apiKey) {
    throw new ApiError(400, 'invalid_request', 'Authorization and X-API-Key carry different credentials; send one');
  }
  if (apiKey && looksLikeJwt(apiKey)) {
    throw new ApiError(401, 'unauthorized', 'X-API-Key carries API keys only; send an access token as "Authorization: Bearer <token>"');
  }
  const value = fromAuthorization ?? apiKey;
  if (!value) return { kind: 'none' };
  return looksLikeJwt(value) ? { kind: 'access_token', value } : { kind: 'api_key', value };
}
