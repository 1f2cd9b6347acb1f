// The authorization server refuses input it cannot keep the way an OAuth server refuses: a NUL or a
// lone surrogate in any text parameter — a registration's client_name or redirect_uris, an
// authorization request's client_id, a token request's form, the path, Basic client credentials —
// and percent-encoding that is not UTF-8 are answered 400 with {"error","error_description"} as
// JSON, the request id and a log line, before the provider (and its store) sees them; never 500.
// Registered redirect URIs must be https, or http on a loopback address (RFC 8252).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../services/kit/logger.js';
import { request } from './helpers/http.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const registration = (fields: Record<string, unknown> = {}) => ({
  redirect_uris: [REDIRECT], client_name: 'Desk Assistant', token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...fields,
});
/** A JSON body with `escaped` (JSON escape text, such as \ud800) as the value of `field`. */
const withEscape = (field: 'client_name' | 'redirect_uris', escaped: string) => {
  const json = JSON.stringify(registration({ [field]: field === 'client_name' ? 'MARK' : ['https://app.example/MARK'] }));
  return json.replace('MARK', escaped);
};

describe.each(storeNames())('the authorization server’s input on %s', (store) => {
  let sys: TestSystem;
  const lines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    sys = await startTestSystem({ store, env: { MCP_PORT: '0' }, logger: createLogger('info', sink) });
  });
  afterAll(async () => sys?.stop());

  async function expectRefused(
    answer: Promise<{ status: number; headers: Headers; body: any }>, errors: string[], mentions: RegExp,
  ) {
    const { status, headers, body } = await answer;
    expect(status).toBe(400);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(errors).toContain(body.error);
    expect(body.error_description).toMatch(mentions);
    const requestId = headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    await expect.poll(() => lines.filter((l) => l.requestId === requestId && l.msg === 'oauth request refused').length).toBe(1);
  }

  const form = (path: string, fields: string, headers: Record<string, string> = {}) =>
    request(sys.settingsUrl!, 'POST', path, { headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, rawBody: fields });
  const json = (rawBody: string) => request(sys.settingsUrl!, 'POST', '/oauth/reg', { headers: { 'content-type': 'application/json' }, rawBody });

  it.each([
    ['a NUL in client_name', 'client_name', '\\u0000', /client_name .*NUL/],
    ['a lone surrogate in client_name', 'client_name', '\\ud800', /client_name .*lone surrogate/],
    ['a NUL in redirect_uris', 'redirect_uris', '\\u0000', /redirect_uris .*NUL/],
    ['a lone surrogate in redirect_uris', 'redirect_uris', '\\udfff', /redirect_uris .*lone surrogate/],
  ] as const)('refuses a registration with %s: 400 invalid_client_metadata', async (_case, field, escaped, mentions) => {
    await expectRefused(json(withEscape(field, escaped)), ['invalid_client_metadata'], mentions);
  });

  it('refuses a NUL or a lone surrogate in a member name of a registration', async () => {
    await expectRefused(json('{"redirect_uris":["https://app.example/cb"],"x\\u0000":1}'), ['invalid_client_metadata'], /member name/);
  });

  it.each([
    ['client_id=%00', /client_id .*NUL/],
    ['client_id=%ED%A0%80', /not percent-encoded UTF-8/],
    ['client_id=x&state=%00', /state .*NUL/],
    ['client_id=x&%00=1', /parameter name .*NUL/],
  ])('refuses an authorization request with %s: 400 invalid_request', async (query, mentions) => {
    await expectRefused(request(sys.settingsUrl!, 'GET', `/oauth/auth?${query}&response_type=code`), ['invalid_request'], mentions);
  });

  it('refuses a token request with client_id=%00 in its form: 400 invalid_request', async () => {
    await expectRefused(form('/oauth/token', 'grant_type=authorization_code&code=x&client_id=%00'), ['invalid_request'], /client_id .*NUL/);
  });

  it('refuses a NUL in Basic client credentials and in the path', async () => {
    const basic = `Basic ${Buffer.from('%00:secret').toString('base64')}`;
    await expectRefused(form('/oauth/token', 'grant_type=client_credentials', { authorization: basic }), ['invalid_request'], /client_id .*NUL/);
    await expectRefused(request(sys.settingsUrl!, 'GET', '/oauth/reg/%00'), ['invalid_request'], /path .*NUL/);
    await expectRefused(request(sys.settingsUrl!, 'PUT', '/oauth/reg/%00', { body: registration() }), ['invalid_request'], /path .*NUL/);
  });

  it('refuses a path the router cannot decode as the authorization server would: 400 JSON with the request id', async () => {
    await expectRefused(request(sys.settingsUrl!, 'GET', '/oauth/%ZZ'), ['invalid_request'], /path is not valid percent-encoded UTF-8/);
    await expectRefused(request(sys.settingsUrl!, 'GET', '/oauth/reg/%E0%80%AF'), ['invalid_request'], /percent-encoded UTF-8/);
    // Elsewhere on the settings port it is the app's error page, with the request id too.
    const page = await request(sys.settingsUrl!, 'GET', '/keys/%ZZ');
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses a form body that is not UTF-8, and one over the provider’s limit', async () => {
    const answer = await fetch(`${sys.settingsUrl}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new Uint8Array([0x61, 0x3d, 0xff]),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'invalid_request', error_description: 'the body is not valid UTF-8' });
    const large = await form('/oauth/token', `x=${'a'.repeat(60 * 1024)}`);
    expect(large.status).toBe(413);
    expect(large.body).toMatchObject({ error: 'invalid_request' });
    expect(large.headers.get('x-request-id')).toBeTruthy();
  });

  it('still answers good requests: the provider’s own refusals carry the request id too', async () => {
    const answer = await form('/oauth/token', 'grant_type=authorization_code&code=nope&client_id=nobody');
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    const requestId = answer.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    await expect.poll(() => lines.some((l) => l.requestId === requestId && l.msg === 'oauth request refused' && l.status === 401 && l.error === 'invalid_client')).toBe(true);
  });

  describe('redirect URIs', () => {
    it.each(['http://evil.example/cb', 'http://10.0.0.1/cb', 'javascript://app.example/cb', 'myapp://callback'])(
      'refuses %s with invalid_redirect_uri', async (uri) => {
        const answer = await request(sys.settingsUrl!, 'POST', '/oauth/reg', { body: registration({ redirect_uris: ['https://app.example/cb', uri] }) });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(/https .*loopback/) });
        expect(answer.headers.get('x-request-id')).toBeTruthy();
      },
    );

    it.each(['http://127.0.0.1:1234/cb', 'http://localhost:8080/cb', 'http://[::1]:5000/cb', 'https://app.example/cb'])('accepts %s', async (uri) => {
      const answer = await request(sys.settingsUrl!, 'POST', '/oauth/reg', { body: registration({ redirect_uris: [uri] }) });
      expect(answer.status).toBe(201);
      expect(answer.body.redirect_uris).toEqual([uri]);
    });
  });
});
