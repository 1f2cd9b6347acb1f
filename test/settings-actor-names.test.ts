// The communities screen names a fellow manager by name (docs/SETTINGS.md "Layout and access"):
// one manager of an organization approves a queued write and switches its community's API writes
// on; the other manager's page names the first by the name they had then (HTML-escaped, never
// their id), and the first sees "you". A name the store cannot keep, or longer than a user's name
// may be, is refused and records nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { callAs } from '../services/kit/grpc/client.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const labKey = liveKey();
/** A name with every character HTML escapes, as the seed allows. */
const MIA = `Mia "M" O'Hara <Lab> & Co`;
const MIA_ESCAPED = 'Mia &quot;M&quot; O&#39;Hara &lt;Lab&gt; &amp; Co';
const seed: SeedInput = {
  users: [
    { id: 'u_mia', email: 'mia@example.org', name: MIA },
    { id: 'u_max', email: 'max@example.org', name: 'Max Second' },
  ],
  organizations: [{
    id: 'o_lab', name: 'Lab', jit_consent: true,
    members: [{ user: 'u_mia', role: 'admin' }, { user: 'u_max', role: 'owner' }],
  }],
  communities: [{ id: 'c_lab', name: 'Lab community', owner: { organization: 'o_lab' } }],
  keys: [{ id: 'k_lab', secret: labKey, owner: { organization: 'o_lab' }, scopes: ['member:write', 'profile:read'] }],
};

describe('settings web app: a fellow manager named by name', () => {
  let sys: TestSystem;
  /** The consent request the first test approves. */
  let approvedId = '';
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(async () => sys?.stop());

  async function signedIn(userId: string): Promise<SettingsClient> {
    const client = new SettingsClient(sys.settingsUrl!);
    await client.signIn(sys, userId);
    return client;
  }
  const attestations = async () => (await sys.clients.communities.listControlledCommunities(
    { userId: 'u_max' }, await callAs(sys.signer, { kind: 'user', userId: 'u_max' }, undefined, 10_000))).communities[0]!.attestations;

  it('shows the second manager who approved a write and switched API writes on, by the first manager’s name', async () => {
    const queued = await request(sys.restUrl, 'POST', '/v1/communities/c_lab/members', { headers: bearer(labKey), body: { members: [{ email: 'new@example.org' }] } });
    expect(queued.body.error.code).toBe('owner_consent_required');
    const mia = await signedIn('u_mia');
    approvedId = /action="\/consent\/([^"]+)"/.exec((await mia.get('/communities')).text)![1]!;
    expect((await mia.submit('/communities', `/consent/${approvedId}`, { decision: 'approve' })).status).toBe(303);
    expect((await mia.submit('/communities', '/communities/c_lab/writes', { enabled: 'on', attest: 'yes' })).status).toBe(303);

    const seen = (await (await signedIn('u_max')).get('/communities')).text;
    expect(seen).toMatch(new RegExp(`<td>1</td><td>on</td><td>${MIA_ESCAPED}</td>`));
    expect(seen).toContain(`approved by ${MIA_ESCAPED} at `);
    expect(seen).not.toContain('another manager of this community');
    expect(seen).not.toContain('u_mia');
    expect(seen).not.toContain('<Lab>');

    const own = (await mia.get('/communities')).text;
    expect(own).toContain(`<td>1</td><td>on</td><td>you (${MIA_ESCAPED})</td>`);
    expect(own).toContain(`approved by you (${MIA_ESCAPED}) at `);
  });

  it('refuses a name longer than 300 characters, or one the store cannot keep, and records nothing', async () => {
    expect(approvedId).not.toBe('');
    const before = await attestations();
    const asMax = await callAs(sys.signer, { kind: 'user', userId: 'u_max' }, undefined, 10_000);
    const enabled = !before[0]!.enabled;
    await expect(sys.clients.communities.setApiWrites({ communityId: 'c_lab', enabled, actorName: 'M'.repeat(301) }, asMax))
      .rejects.toThrow(/INVALID_ARGUMENT: actor_name is at most 300 characters/);
    await expect(sys.clients.communities.setApiWrites({ communityId: 'c_lab', enabled, actorName: 'Max \ud800' }, asMax))
      .rejects.toThrow(/INVALID_ARGUMENT: actorName: must be well-formed Unicode text/);
    expect(await attestations()).toEqual(before);

    await expect(sys.clients.communities.resolveConsentRequest({ consentRequestId: approvedId, approve: true, actorName: 'M'.repeat(301) }, asMax))
      .rejects.toThrow(/INVALID_ARGUMENT: actor_name is at most 300 characters/);
    const { requests } = await sys.clients.communities.listConsentRequests({ communityId: 'c_lab', pageSize: 10 }, asMax);
    expect(requests.map((r) => [r.id, r.resolvedBy, r.resolvedByName])).toEqual([[approvedId, 'user:u_mia', MIA]]);
  });
});
