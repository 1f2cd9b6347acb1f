// Client ID metadata documents, the way current MCP clients may name themselves: by the https URL of
// their metadata document instead of registering. The authorization server advertises them, and
// fetches a document only from a public address: a client_id URL on this machine (a special-use
// address) is refused as invalid_client and never requested — the provider's SSRF protection — and
// the browser is not sent anywhere.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { request } from './helpers/http.js';
import { followRedirects } from './helpers/oidc-identity-provider.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }] };
const REDIRECT = 'http://127.0.0.1:9/callback';

/** A self-signed certificate for 127.0.0.1 (openssl). */
function testCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'en-cimd-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
}

describe('OAuth client ID metadata documents', () => {
  let sys: TestSystem;
  let documents: Server;
  let fetched = 0;
  let ada: SettingsClient;
  beforeAll(async () => {
    documents = createServer(testCertificate(), (_req, res) => {
      fetched++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    sys = await startTestSystem({ seed, env: { MCP_PORT: '0' } });
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => {
    await sys?.stop();
    await new Promise((resolve) => documents?.close(resolve));
  });

  it('are advertised in the authorization server metadata', async () => {
    const metadata = await request(sys.settingsUrl!, 'GET', '/.well-known/oauth-authorization-server/oauth');
    expect(metadata.body.client_id_metadata_document_supported).toBe(true);
  });

  it('are never fetched from an address on this machine: the request is refused as invalid_client, with no redirect', async () => {
    const clientId = `https://127.0.0.1:${(documents.address() as AddressInfo).port}/assistant.json`;
    const url = new URL(`${sys.settingsUrl}/oauth/auth`);
    for (const [k, v] of Object.entries({
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'profile:read', resource: sys.mcpUrl!,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'), code_challenge_method: 'S256',
    })) url.searchParams.set(k, v);
    const answer = await followRedirects(url.href, new Map([[new URL(sys.settingsUrl!).origin, new Map(ada.cookies)]]), () => true);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain('invalid_client: client_id metadata document fetch failed');
    expect(fetched).toBe(0);
  });
});
