// Client ID metadata documents, the way current MCP clients may name themselves: by the https URL of
// their metadata document instead of registering. The authorization server advertises them; a
// client_id URL whose document cannot be fetched (here: an address on this machine, which the
// provider also refuses to fetch from) is refused as invalid_client, and the browser is sent nowhere.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { request } from './helpers/http.js';
import { followRedirects } from './helpers/oidc-identity-provider.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const seed: SeedInput = { users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }] };
const REDIRECT = 'http://127.0.0.1:9/callback';

describe('OAuth client ID metadata documents', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  beforeAll(async () => {
    sys = await startTestSystem({ seed, env: { MCP_PORT: '0' } });
    ada = new SettingsClient(sys.settingsUrl!);
    await ada.signIn(sys, 'u_ada');
  });
  afterAll(async () => sys?.stop());

  it('are advertised in the authorization server metadata', async () => {
    const metadata = await request(sys.settingsUrl!, 'GET', '/.well-known/oauth-authorization-server/oauth');
    expect(metadata.body.client_id_metadata_document_supported).toBe(true);
  });

  it('refuse a client_id URL whose document cannot be fetched as invalid_client, with no redirect and no client kept', async () => {
    const clientId = 'https://127.0.0.1:9/assistant.json';
    const url = new URL(`${sys.settingsUrl}/oauth/auth`);
    for (const [k, v] of Object.entries({
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'profile:read', resource: sys.mcpUrl!,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'), code_challenge_method: 'S256',
    })) url.searchParams.set(k, v);
    const answer = await followRedirects(url.href, new Map([[new URL(sys.settingsUrl!).origin, new Map(ada.cookies)]]), () => true);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.text).toContain('invalid_client: client_id metadata document fetch failed');
    expect(await sys.db!.query(`SELECT id FROM edge.oauth_state WHERE model = 'Client'`)).toEqual([]);
  });
});
