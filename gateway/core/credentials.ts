// Reading the credential a request presents: `Authorization: Bearer <secret>` or `X-API-Key`.
import { ApiError } from './api-error.js';

export type PresentedCredential = { kind: 'bearer'; value: string } | { kind: 'none' };

type Headers = Record<string, string | string[] | undefined>;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function presentedCredential(headers: Headers): PresentedCredential {
  const authorization = single(headers.authorization)?.trim();
  const apiKey = single(headers['x-api-key'])?.trim();
  let fromAuthorization: string | undefined;
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw new ApiError(401, 'unauthorized', 'Authorization must be "Bearer <API key>"');
    fromAuthorization = match[1];
  }
  if (fromAuthorization && apiKey && fromAuthorization !== apiKey) {
    throw new ApiError(400, 'invalid_request', 'Authorization and X-API-Key carry different credentials; send one');
  }
  const value = fromAuthorization ?? apiKey;
  return value ? { kind: 'bearer', value } : { kind: 'none' };
}
