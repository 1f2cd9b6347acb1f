// A client_id naming a metadata document on this machine or its private network is refused before
// the system connects anywhere: with the system's own fetch (no suite hooks), a client_id on a TCP
// server on loopback — by address, by a name resolving to it, in IPv4-mapped form — is refused as
// the client's OAuth error while the server sees no connection at all, and the answer takes the
// same short time whether a silent server listens on the port or nothing does (no port probe).
// The operator's switch for local development (OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS=true) lets
// the same request through to the server.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../services/kit/logger.js';
import { followRedirects } from './helpers/oidc-identity-provider.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** The authorization request of a client named `clientId`, answered without following the client's redirect. */
async function authorizeAt(sys: TestSystem, clientId: string) {
  const url = new URL(`${sys.settingsUrl}/oauth/auth`);
  for (const [k, v] of Object.entries({
    client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'profile:read', resource: sys.mcpUrl!,
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'), code_challenge_method: 'S256',
  })) url.searchParams.set(k, v);
  const started = performance.now();
  const answer = await followRedirects(url.href, new Map(), () => true);
  return { ...answer, ms: performance.now() - started };
}

describe('client ID metadata documents on special-use addresses', () => {
  let sys: TestSystem;
  let silent: Server;
  let connections = 0;
  let closedPort: number;
  const lines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    silent = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    sys = await startTestSystem({ env: { MCP_PORT: '0' }, logger: createLogger('info', sink) });
  });
  afterAll(async () => {
    await sys?.stop();
    await new Promise((resolve) => silent?.close(resolve));
  });

  const authorize = (clientId: string) => authorizeAt(sys, clientId);

  it.each([
    ['by address', (port: number) => `https://127.0.0.1:${port}/c.json`],
    ['by a name that resolves to loopback', (port: number) => `https://localhost:${port}/c.json`],
    ['in IPv4-mapped IPv6 form', (port: number) => `https://[::ffff:127.0.0.1]:${port}/c.json`],
  ])('refuses a client_id on a loopback server %s, which sees no connection', async (_case, clientIdFor) => {
    const before = connections;
    const linesBefore = lines.length;
    const answer = await authorize(clientIdFor((silent.address() as AddressInfo).port));
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain('invalid_client: client_id metadata document fetch failed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections).toBe(before);
    // The operator reads why in the log line of the refusal.
    expect(lines.slice(linesBefore)).toContainEqual(expect.objectContaining({
      msg: 'oauth request refused', status: 400, error: 'invalid_client', cause: expect.stringMatching(/is not a public address$/),
    }));
  });

  it('answers the same whether a silent server listens on the port or nothing does, connecting to neither', async () => {
    const listening = await authorize(`https://127.0.0.1:${(silent.address() as AddressInfo).port}/open.json`);
    const nothing = await authorize(`https://127.0.0.1:${closedPort}/closed.json`);
    for (const answer of [listening, nothing]) expect(answer.status).toBe(400);
    expect(listening.text).toBe(nothing.text);
    // The address was refused before any connection: the silent server saw none (a probe would
    // have been accepted there, and waited for the provider's timeout).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections).toBe(0);
  });
});

describe('client ID metadata documents with OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS=true', () => {
  let sys: TestSystem;
  let server: Server;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    sys = await startTestSystem({ env: { MCP_PORT: '0', OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: 'true' } });
  });
  afterAll(async () => {
    await sys?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('fetches from a loopback address: the server sees the connection (and, silent, times out)', async () => {
    const answer = await authorizeAt(sys, `https://127.0.0.1:${(server.address() as AddressInfo).port}/c.json`);
    // (The provider looks the client up, and so fetches, twice while refusing the request.)
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('invalid_client: client_id metadata document fetch failed');
    expect(answer.ms).toBeGreaterThan(2000);
  });
});
