// Reading the credential a request presents: `Authorization: Bearer <API key or access token>` or
// `X-API-Key: <API key>`. A bearer value shaped like a JWT (three base64url segments separated by
// dots) is an OAuth access token; anything else is an API key (`svc_…`), which identity checks.
// X-API-Key carries API keys only.
//
// An access token is only good for the resource it was minted for (RFC 8707): a surface other than
// the REST API names its own resource here, and identity checks the token's `aud` against it. API
// keys have no audience and work on every surface.
import { looksLikeJwt } from '../../services/kit/jwt-shape.js';
import { ApiError } from './api-error.js';

export type PresentedCredential =
  | { kind: 'api_key'; value: string }
  /** `resource`: the resource URI the token is presented to (identity requires it in `aud`); unset: the REST API. */
  | { kind: 'access_token'; value: string; resource?: string }
  | { kind: 'none' };

type Headers = Record<string, string | string[] | undefined>;

export { looksLikeJwt };

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A secret as a credential: an access token (for `resource`, when given) if JWT-shaped, else an API key. */
export function credentialOf(value: string, resource?: string): PresentedCredential {
  if (!looksLikeJwt(value)) return { kind: 'api_key', value };
  return resource ? { kind: 'access_token', value, resource } : { kind: 'access_token', value };
}

/** The credential of a request's headers; `resource` is the resource URI of the surface reading them (unset: the REST API). */
export function presentedCredential(headers: Headers, resource?: string): PresentedCredential {
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
  return credentialOf(value, resource);
}
