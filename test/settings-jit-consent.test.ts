// The just-in-time consent switch on the communities screen: the signed-in user turns their own
// setting on (a write by a key to their community whose API writes are off then gets 422
// owner_consent_required and waits in the queue) and off (the same write gets 422 unprocessable and
// nothing is queued). The form names no user: nobody can flip another user's switch, and identity
// refuses a signed-in user who asks for someone else. A queued write says what it is and who asked;
// approving it lets that very write through on retry, once, never another (#43), and the
// decisions stay listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { ConsentStatus } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { callAs } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { signedInClients, type SettingsClient } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const ownKey = liveKey();
const labKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_own', email: 'own@example.org', name: 'Owen Owner', plan: 'paid' },
    { id: 'u_other', email: 'other@example.org', name: 'Oscar Other' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_own', role: 'admin' }, { user: 'u_other', role: 'member' }] }],
  communities: [
    { id: 'c_own', name: 'Owned', owner: { user: 'u_own' } },
    { id: 'c_lab', name: 'Lab community', owner: { organization: 'o_lab' } },
  ],
  keys: [
    { id: 'k_own', secret: ownKey, owner: { user: 'u_own' }, scopes: ['member:write', 'profile:read'] },
    { id: 'k_lab', secret: labKey, owner: { organization: 'o_lab' }, scopes: ['member:write', 'profile:read'] },
  ],
};

describe('settings web app: the just-in-time consent switch', () => {
  let sys: TestSystem;
  let owner: SettingsClient;
  let other: SettingsClient;
  const add = (email: string) =>
    request(sys.restUrl, 'POST', '/v1/communities/c_own/members', { headers: bearer(ownKey), body: { members: [{ email }] } });
  const operator = () => callAs(sys.signer, { kind: 'operator', actor: 'jit-test' }, undefined, 10_000);
  const jitOf = async (userId: string) => (await sys.clients.identity.getUser({ userId }, await operator())).user!.jitConsent;
  const labJit = async () => (await sys.clients.identity.getOrganization({ organizationId: 'o_lab' }, await operator())).organization!.jitConsent;
  const addToLab = (email: string) =>
    request(sys.restUrl, 'POST', '/v1/communities/c_lab/members', { headers: bearer(labKey), body: { members: [{ email }] } });
  /** Pending consent requests of c_own. */
  const pendingOf = async () => (await sys.clients.communities.listConsentRequests(
    { communityId: 'c_own', pageSize: 50, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, await operator())).requests.length;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    [owner, other] = await signedInClients(sys, 'u_own', 'u_other');
  });
  afterAll(async () => sys?.stop());

  it('on: a write by the key gets 422 owner_consent_required and waits in the queue on the page', async () => {
    const before = await owner.get('/communities');
    expect(before.text).toContain('Your communities: just-in-time consent is <strong>off</strong>');
    const on = await owner.submit('/communities', '/jit-consent', { enabled: 'on' });
    expect(on.status).toBe(303);
    const after = await owner.get(on.headers.get('location')!);
    expect(after.text).toContain('Just-in-time consent is on: a write to a community you own');
    expect(after.text).toContain('Your communities: just-in-time consent is <strong>on</strong>');
    expect(await jitOf('u_own')).toBe(true);

    const write = await add('queued@example.org');
    expect(write.status).toBe(422);
    expect(write.body.error.code).toBe('owner_consent_required');
    const page = (await owner.get('/communities')).text;
    expect(page).toContain('<code>members.add</code>: add 1 person as member: queued@example.org');
    const prefix = /asked by key <strong>\(unnamed key\)<\/strong> \(<code>([^<]+)<\/code>\)/.exec(page)?.[1];
    expect(prefix && ownKey.startsWith(prefix)).toBe(true);
  });

  it('off: the same write gets 422 unprocessable and nothing more is queued', async () => {
    const queued = await pendingOf();
    const off = await owner.submit('/communities', '/jit-consent', { enabled: 'off' });
    expect(off.status).toBe(303);
    expect((await owner.get(off.headers.get('location')!)).text).toContain('Your communities: just-in-time consent is <strong>off</strong>');
    expect(await jitOf('u_own')).toBe(false);

    const write = await add('refused@example.org');
    expect(write.status).toBe(422);
    expect(write.body.error.code).toBe('unprocessable');
    expect(await pendingOf()).toBe(queued);
  });

  it('refuses a bad value (400) and a form without its CSRF token (403), changing nothing', async () => {
    const bad = await owner.submit('/communities', '/jit-consent', { enabled: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('enabled must be on or off');
    const forged = await owner.send('POST', '/jit-consent', { enabled: 'on' });
    expect(forged.status).toBe(403);
    expect(await jitOf('u_own')).toBe(false);
  });

  it('refuses an organization id holding NUL (sent as %00) with 400 naming the field, changing nothing', async () => {
    const nul = await owner.submit('/communities', '/jit-consent', { enabled: 'on', organization: 'o_lab\u0000' });
    expect(nul.status).toBe(400);
    expect(nul.text).toContain('organization: must not contain the NUL character (U+0000)');
    expect(await labJit()).toBe(false);
  });

  it('lets nobody flip another user’s switch: the form names no user, and identity refuses', async () => {
    const attempt = await other.submit('/communities', '/jit-consent', { enabled: 'on', user_id: 'u_own', userId: 'u_own' });
    expect(attempt.status).toBe(303);
    expect(await jitOf('u_own')).toBe(false);
    expect(await jitOf('u_other')).toBe(true);

    const asOther = await callAs(sys.signer, { kind: 'user', userId: 'u_other' }, undefined, 10_000);
    const refusals = await Promise.all([
      sys.clients.identity.setJitConsent({ userId: 'u_own', enabled: true }, asOther).catch((e) => e),
      sys.clients.identity.getUser({ userId: 'u_own' }, asOther).catch((e) => e),
    ]);
    expect(refusals.map((e) => readRemoteError(e)?.code)).toEqual(['forbidden', 'forbidden']);
    expect(await jitOf('u_own')).toBe(false);
    expect((await add('still.refused@example.org')).body.error.code).toBe('unprocessable');
  });

  it('switches an organization’s setting for its admin: a write to its community waits in the queue, and off refuses it again', async () => {
    expect((await owner.get('/communities')).text).toContain('Lab: just-in-time consent is <strong>off</strong>');
    const on = await owner.submit('/communities', '/jit-consent', { enabled: 'on', organization: 'o_lab' });
    expect(on.status).toBe(303);
    const after = await owner.get(on.headers.get('location')!);
    expect(after.text).toContain('Just-in-time consent is on for the organization');
    expect(after.text).toContain('Lab: just-in-time consent is <strong>on</strong>');
    expect(await labJit()).toBe(true);
    expect(await jitOf('u_own')).toBe(false);

    const queued = await addToLab('lab.queued@example.org');
    expect(queued.status).toBe(422);
    expect(queued.body.error.code).toBe('owner_consent_required');
    const page = (await owner.get('/communities')).text;
    expect(page).toContain('<code>members.add</code>: add 1 person as member: lab.queued@example.org');
    const prefix = /lab\.queued@example\.org <span class="hint">— asked by key <strong>\(unnamed key\)<\/strong> \(<code>([^<]+)<\/code>\)/.exec(page)?.[1];
    expect(prefix && labKey.startsWith(prefix)).toBe(true);

    expect((await owner.submit('/communities', '/jit-consent', { enabled: 'off', organization: 'o_lab' })).status).toBe(303);
    expect(await labJit()).toBe(false);
    const refused = await addToLab('lab.refused@example.org');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('unprocessable');
  });

  it('gives a plain member of the organization no switch for it: their forged form is 404 and identity refuses, changing nothing', async () => {
    const page = (await other.get('/communities')).text;
    expect(page).not.toContain('name="organization"');
    expect(page).not.toContain('Lab: just-in-time consent');
    const forged = await other.submit('/communities', '/jit-consent', { enabled: 'on', organization: 'o_lab' });
    expect(forged.status).toBe(404);
    expect(forged.text).toContain('organization o_lab not found');
    const asOther = await callAs(sys.signer, { kind: 'user', userId: 'u_other' }, undefined, 10_000);
    const refusal = await sys.clients.identity.setJitConsent({ userId: 'u_other', enabled: true, organizationId: 'o_lab' }, asOther).catch((e) => e);
    expect(readRemoteError(refusal)?.code).toBe('not_found');
    expect((await sys.clients.identity.listManagedOrganizations({ userId: 'u_other' }, asOther)).organizations).toEqual([]);
    expect(await labJit()).toBe(false);
    expect((await addToLab('lab.still.refused@example.org')).body.error.code).toBe('unprocessable');
  });

  it('approving a queued add lets that same add through on retry, once; the same add again and a different add each wait as a request of their own', async () => {
    expect((await owner.submit('/communities', '/jit-consent', { enabled: 'on' })).status).toBe(303);
    await sys.clients.identity.renameKey({ keyId: 'k_own', name: 'Roster sync' }, await operator());
    const addBody = (members: object[]) =>
      request(sys.restUrl, 'POST', '/v1/communities/c_own/members', { headers: bearer(ownKey), body: { members } });
    const people = [{ name: 'Ada Lovelace', email: 'ada@example.org' }, { email: 'grace@example.org' }];
    const queued = await addBody(people);
    expect(queued.status).toBe(422);
    expect(queued.body.error.code).toBe('owner_consent_required');
    const before = await pendingOf();

    // The queue item: the people and who asked, by key name and prefix.
    const page = (await owner.get('/communities')).text;
    expect(page).toContain('<code>members.add</code>: add 2 people as member: Ada Lovelace &lt;ada@example.org&gt;; grace@example.org');
    const prefix = /grace@example\.org <span class="hint">— asked by key <strong>Roster sync<\/strong> \(<code>([^<]+)<\/code>\)/.exec(page)?.[1];
    expect(prefix && ownKey.startsWith(prefix)).toBe(true);

    const requests = (await sys.clients.communities.listConsentRequests(
      { communityId: 'c_own', pageSize: 50, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, await operator())).requests;
    const adaRequest = requests.find((r) => r.description.includes('Ada Lovelace'))!;
    const approved = await owner.submit('/communities', `/consent/${adaRequest.id}`, { decision: 'approve' });
    expect(approved.status).toBe(303);
    expect((await owner.get(approved.headers.get('location')!)).text).toContain('a retry of that same write succeeds once within 24 hours');

    // The same body (its keys in another order) goes through; a different add is queued anew.
    const retried = await addBody([{ email: 'ada@example.org', name: 'Ada Lovelace' }, { email: 'grace@example.org' }]);
    expect(retried.status).toBe(200);
    // Once: the same body again is queued as a new request, which the screen lists.
    const again = await addBody(people);
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('owner_consent_required');
    const adaAgain = (await sys.clients.communities.listConsentRequests(
      { communityId: 'c_own', pageSize: 50, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, await operator()))
      .requests.find((r) => r.description.includes('Ada Lovelace'))!;
    expect(adaAgain.id).not.toBe(adaRequest.id);
    expect(again.body.error.message).toContain(adaAgain.id);
    expect((await owner.get('/communities')).text).toContain('<code>members.add</code>: add 2 people as member: Ada Lovelace &lt;ada@example.org&gt;; grace@example.org');
    const other = await addBody([{ email: 'mallory@example.org' }]);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('owner_consent_required');
    expect(await pendingOf()).toBe(before + 1);
    const mallory = (await sys.clients.communities.listConsentRequests(
      { communityId: 'c_own', pageSize: 50, pageToken: '', status: ConsentStatus.CONSENT_STATUS_PENDING }, await operator()))
      .requests.find((r) => r.description.includes('mallory@example.org'))!;
    expect(mallory.id).not.toBe(adaRequest.id);
    // API writes stay off: the approval enabled nothing for good.
    expect((await owner.get('/communities')).text).toContain('API writes are <strong>off</strong>');

    // Denied, it stays refused; both decisions are listed on the screen.
    expect((await owner.submit('/communities', `/consent/${mallory.id}`, { decision: 'deny' })).status).toBe(303);
    expect((await addBody([{ email: 'mallory@example.org' }])).body.error.code).toBe('owner_consent_required');
    const history = (await owner.get('/communities')).text;
    expect(history).toContain('<caption>Recent consent decisions for Owned</caption>');
    expect(history).toMatch(/add 1 person as member: mallory@example\.org<\/td><td>key <strong>Roster sync<\/strong>[^]*?<td>denied by you \(Owen Owner\) at /);
    expect(history).toMatch(/add 2 people as member: Ada Lovelace &lt;ada@example\.org&gt;; grace@example\.org<\/td><td>key <strong>Roster sync<\/strong>[^]*?<td>approved by you \(Owen Owner\) at [^<]*; the write went through at /);

    // An erasure waits naming the member to erase.
    const ada = (retried.body.results as Array<{ profile_id: string }>)[0]!.profile_id;
    const erase = await request(sys.restUrl, 'DELETE', `/v1/communities/c_own/members/${ada}`, { headers: bearer(ownKey) });
    expect(erase.body.error.code).toBe('owner_consent_required');
    expect((await owner.get('/communities')).text).toContain(`<code>members.remove</code>: erase member (${ada}) and their data in this community`);
  });
});
