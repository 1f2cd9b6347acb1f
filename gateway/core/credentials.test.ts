// Which credential a request presents: a JWT-shaped bearer value is an access token, anything else
// an API key; X-API-Key carries API keys only.
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { credentialOf, presentedCredential } from './credentials.js';

const key = 'svc_live_0123456789012345678901234567890123456789012ABCDEF';
const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1X2FkYSJ9.c2lnbmF0dXJl';

function refusal(headers: Record<string, string>): ApiError {
  try {
    presentedCredential(headers);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('presentedCredential', () => {
  it('reads a bearer API key and an X-API-Key API key', () => {
    expect(presentedCredential({ authorization: `Bearer ${key}` })).toEqual({ kind: 'api_key', value: key });
    expect(presentedCredential({ 'x-api-key': key })).toEqual({ kind: 'api_key', value: key });
    expect(presentedCredential({ authorization: `bearer ${key}`, 'x-api-key': key })).toEqual({ kind: 'api_key', value: key });
  });

  it('reads a JWT-shaped bearer value as an access token (an unsigned one too)', () => {
    expect(presentedCredential({ authorization: `Bearer ${jwt}` })).toEqual({ kind: 'access_token', value: jwt });
    const unsigned = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1In0.';
    expect(presentedCredential({ authorization: `Bearer ${unsigned}` })).toEqual({ kind: 'access_token', value: unsigned });
  });

  it('treats anything else as an API key for identity to refuse', () => {
    for (const value of ['hello', 'a.b', 'a.b.c.d', 'a..c', 'a.b+.c']) {
      expect(presentedCredential({ authorization: `Bearer ${value}` })).toEqual({ kind: 'api_key', value });
    }
  });

  it('refuses an access token in X-API-Key with 401', () => {
    const error = refusal({ 'x-api-key': jwt });
    expect(error.status).toBe(401);
    expect(error.message).not.toContain(jwt);
    expect(refusal({ authorization: `Bearer ${jwt}`, 'x-api-key': jwt }).status).toBe(401);
  });

  it('refuses two different credentials with 400, and a non-bearer Authorization with 401', () => {
    expect(refusal({ authorization: `Bearer ${jwt}`, 'x-api-key': key }).status).toBe(400);
    expect(refusal({ authorization: `Basic ${key}` }).status).toBe(401);
  });

  it('reports none when nothing is presented', () => {
    expect(presentedCredential({})).toEqual({ kind: 'none' });
  });

  it('puts the resource of the surface reading it on an access token, never on an API key', () => {
    const mcp = 'http://127.0.0.1:8081/mcp';
    expect(presentedCredential({ authorization: `Bearer ${jwt}` }, mcp)).toEqual({ kind: 'access_token', value: jwt, resource: mcp });
    expect(presentedCredential({ authorization: `Bearer ${key}` }, mcp)).toEqual({ kind: 'api_key', value: key });
    expect(credentialOf(jwt, mcp)).toEqual({ kind: 'access_token', value: jwt, resource: mcp });
    expect(credentialOf(key, mcp)).toEqual({ kind: 'api_key', value: key });
  });
});
