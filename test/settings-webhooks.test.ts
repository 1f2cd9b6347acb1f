// The settings app's webhooks screen over HTTP (docs/SETTINGS.md "Webhooks"): adding an endpoint
// shows its signing secret once and the API then lists it as the person's own; disable, enable,
// rotate (the new secret once) and delete; a form without a token, or with another session's, is
// refused (403) and changes nothing; what was entered is escaped on every page; another person's
// endpoint is 404 for every page and form; a refused URL or form shows the precise reason with what
// was entered, storing nothing. From an endpoint's page a test event and a resend are queued and the
// delivery log lists them; a disabled endpoint offers neither and refuses both (409), another
// person's endpoint is 404. In Chromium, with a receiver: settings-webhooks-browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { csrfTokenOf, SettingsClient, signedInClients } from './helpers/settings-browser-http.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = liveKey();
const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_mal', email: 'mal@example.org', name: 'Mallory', plan: 'paid' },
  ],
  keys: [{ id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['webhooks:read'], requested_rate: 6000 }],
};
const PUBLIC_URL = 'https://93.184.216.34/hooks';

describe('settings web app: the webhooks screen', () => {
  let sys: TestSystem;
  let ada: SettingsClient;
  let mallory: SettingsClient;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    [ada, mallory] = await signedInClients(sys, 'u_ada', 'u_mal');
  });
  afterAll(async () => sys?.stop());

  /** Ada's endpoints as the API lists them to her key. */
  const adasEndpoints = async () => (await request(sys.restUrl, 'GET', '/v1/webhook_endpoints', { headers: bearer(adaKey) })).body.endpoints as Record<string, unknown>[];

  /** Adds an endpoint with the form; answers its id and the page that showed the secret. */
  async function add(client: SettingsClient, fields: Record<string, string | string[]>) {
    const posted = await client.submit('/webhooks', '/webhooks', fields);
    expect(posted.status, posted.text).toBe(303);
    const location = posted.headers.get('location')!;
    const id = /^\/webhooks\/(we_[\w-]+)\/created$/.exec(location)![1]!;
    return { id, shown: await client.get(location) };
  }

  it('adds an endpoint: its secret shown once (no-store), then never again; the API lists it as hers', async () => {
    const { id, shown } = await add(ada, { url: PUBLIC_URL, events: ['member.added', 'search.completed'], description: 'Roster sync' });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const secret = /<code id="new-secret">(whsec_[^<]+)<\/code>/.exec(shown.text)![1]!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const again = await ada.get(`/webhooks/${id}/created`);
    expect(again.text).not.toContain(secret);
    expect(again.text).toContain('was already shown');
    expect(await adasEndpoints()).toContainEqual(expect.objectContaining({ id, url: PUBLIC_URL, events: ['member.added', 'search.completed'], description: 'Roster sync', status: 'enabled' }));
    for (const path of ['/webhooks', `/webhooks/${id}`]) expect((await ada.get(path)).text).not.toContain(secret);
    expect((await ada.get('/webhooks')).text).toContain(`href="/webhooks/${id}"`);
  });

  it('disables and enables an endpoint, rotates its secret (the new one once) and deletes it', async () => {
    const { id } = await add(ada, { url: PUBLIC_URL, events: 'member.erased' });
    const disabled = await ada.submit(`/webhooks/${id}`, `/webhooks/${id}/status`, { status: 'disabled' });
    expect([disabled.status, disabled.headers.get('location')]).toEqual([303, `/webhooks/${id}?done=disabled`]);
    expect((await adasEndpoints()).find((e) => e.id === id)).toMatchObject({ status: 'disabled' });
    expect((await ada.get(`/webhooks/${id}`)).text).toContain('Disabled by you');
    await ada.submit(`/webhooks/${id}`, `/webhooks/${id}/status`, { status: 'enabled' });
    expect((await adasEndpoints()).find((e) => e.id === id)).toMatchObject({ status: 'enabled' });

    const rotated = await ada.submit(`/webhooks/${id}`, `/webhooks/${id}/rotate`);
    expect([rotated.status, rotated.headers.get('location')]).toEqual([303, `/webhooks/${id}/rotated`]);
    const page = await ada.get(`/webhooks/${id}/rotated`);
    expect(page.text).toMatch(/<code id="new-secret">whsec_/);
    expect(page.text).toContain('keeps signing deliveries beside the new one for 24 hours');
    expect((await ada.get(`/webhooks/${id}/rotated`)).text).not.toContain('id="new-secret"');

    const deleted = await ada.submit(`/webhooks/${id}/delete`, `/webhooks/${id}/delete`);
    expect([deleted.status, deleted.headers.get('location')]).toEqual([303, `/webhooks?deleted=${id}`]);
    expect((await adasEndpoints()).map((e) => e.id)).not.toContain(id);
  });

  it('refuses a form without a CSRF token, or with another session’s, and changes nothing (403)', async () => {
    const { id } = await add(ada, { url: PUBLIC_URL, events: 'member.added' });
    await ada.submit(`/webhooks/${id}`, `/webhooks/${id}/test`);
    const deliveryIds = async () => ((await request(sys.restUrl, 'GET', `/v1/webhook_endpoints/${id}/deliveries`, { headers: bearer(adaKey) })).body.deliveries as { id: string }[]).map((d) => d.id);
    const [deliveryId] = await deliveryIds();
    const before = await adasEndpoints();
    const malloryToken = csrfTokenOf((await mallory.get('/webhooks')).text);
    const forms: [string, Record<string, string>][] = [
      ['/webhooks', { url: 'https://93.184.216.34/forged', events: 'member.added' }],
      [`/webhooks/${id}/status`, { status: 'disabled' }],
      [`/webhooks/${id}/rotate`, {}],
      [`/webhooks/${id}/delete`, {}],
      [`/webhooks/${id}/test`, {}],
      [`/webhooks/${id}/deliveries/${deliveryId}/resend`, {}],
    ];
    for (const [action, fields] of forms) {
      for (const token of [undefined, malloryToken]) {
        const forged = await ada.send('POST', action, { ...(token && { _csrf: token }), ...fields });
        expect(forged.status, `${action} with ${token ? 'another session’s token' : 'no token'}`).toBe(403);
        expect(forged.text).toContain('not sent from a page of this site in your current session');
      }
    }
    expect(await adasEndpoints()).toEqual(before);
    expect(await deliveryIds()).toEqual([deliveryId]);
    // The rotation did not happen either: the secret is not on any page, and none waits to be shown.
    expect((await ada.get(`/webhooks/${id}/rotated`)).text).not.toContain('id="new-secret"');
  });

  it('escapes a hostile description and URL on the list, the endpoint page and the delete confirmation', async () => {
    const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const { id, shown } = await add(ada, { url: `${PUBLIC_URL}?q=<b>"x'`, events: 'member.added', description: hostile });
    for (const page of [shown, await ada.get('/webhooks'), await ada.get(`/webhooks/${id}`), await ada.get(`/webhooks/${id}/delete`)]) {
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).not.toContain('<b>"x');
    }
    const list = (await ada.get('/webhooks')).text;
    expect(list).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect((await adasEndpoints()).find((e) => e.id === id)).toMatchObject({ description: hostile });
  });

  it('answers 404 for another person’s endpoint on every page and form, changing nothing', async () => {
    const { id } = await add(ada, { url: PUBLIC_URL, events: 'member.added' });
    const before = await adasEndpoints();
    for (const path of [`/webhooks/${id}`, `/webhooks/${id}/delete`, `/webhooks/${id}/created`, `/webhooks/${id}/rotated`]) {
      expect((await mallory.get(path)).status, path).toBe(404);
    }
    for (const [action, fields] of [[`/webhooks/${id}/status`, { status: 'disabled' }], [`/webhooks/${id}/rotate`, {}], [`/webhooks/${id}/delete`, {}]] as const) {
      const answer = await mallory.submit('/webhooks', action, fields);
      expect(answer.status, action).toBe(404);
      expect(answer.text).toContain('not found');
    }
    expect((await mallory.get('/webhooks')).text).not.toContain(id);
    expect(await adasEndpoints()).toEqual(before);
  });

  it('shows the form again with the precise reason and what was entered for a refused URL or form, adding nothing', async () => {
    const before = await adasEndpoints();
    const cases: [Record<string, string | string[]>, string][] = [
      [{ url: 'http://93.184.216.34/plain', events: 'member.added', description: 'kept' }, 'url: must be an https URL'],
      [{ url: 'https://10.1.2.3/inside', events: 'member.added', description: 'kept' }, 'url: 10.1.2.3 is not a public address'],
      [{ url: 'https://user:pw@93.184.216.34/x', events: 'member.added', description: 'kept' }, 'url: must be an absolute http(s) URL without user name, password or fragment'],
      [{ url: 'not a url', events: 'member.added', description: 'kept' }, 'url: must be an absolute http(s) URL without user name, password or fragment'],
      [{ url: '', events: 'member.added', description: 'kept' }, 'url: give the address that receives the events'],
      [{ url: PUBLIC_URL, description: 'kept' }, 'events: tick at least one event type'],
      [{ url: PUBLIC_URL, events: 'member.renamed', description: 'kept' }, 'events: '],
      [{ url: PUBLIC_URL, events: 'member.added', description: 'x'.repeat(501) }, 'description: '],
    ];
    for (const [fields, reason] of cases) {
      const refused = await ada.submit('/webhooks', '/webhooks', fields);
      expect(refused.status, reason).toBe(400);
      expect(refused.text).toContain(`The endpoint was not added: ${reason}`);
      expect(refused.text).toMatch(/role="alert" id="add-error"/);
      if (fields.url) expect(refused.text).toContain(`value="${String(fields.url).replace(/&/g, '&amp;')}"`);
    }
    const kept = (await ada.submit('/webhooks', '/webhooks', { url: 'http://93.184.216.34/plain', events: ['member.added', 'search.failed'], description: 'kept' })).text;
    expect(kept).toMatch(/value="member.added" checked/);
    expect(kept).toMatch(/value="search.failed" checked/);
    expect(kept).toContain('value="kept"');
    expect(await adasEndpoints()).toEqual(before);
  });

  it('queues a test event and a resend from the endpoint page, listed in its delivery log with a page of its attempts; a disabled endpoint offers neither (409)', async () => {
    const { id } = await add(ada, { url: PUBLIC_URL, events: 'member.added' });
    expect((await ada.get(`/webhooks/${id}`)).text).toContain('No deliveries yet.');
    const sent = await ada.submit(`/webhooks/${id}`, `/webhooks/${id}/test`);
    expect([sent.status, sent.headers.get('location')]).toEqual([303, `/webhooks/${id}?done=test#deliveries`]);
    const deliveries = async () => (await request(sys.restUrl, 'GET', `/v1/webhook_endpoints/${id}/deliveries`, { headers: bearer(adaKey) })).body.deliveries as { id: string; event_id: string; event_type: string }[];
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ event_type: 'webhook.test' });
    const page = (await ada.get(`/webhooks/${id}?done=test`)).text;
    expect(page).toContain('A test event was queued');
    expect(page).toContain(`webhook.test <code>${delivery!.event_id}</code>`);
    const resendAction = `/webhooks/${id}/deliveries/${delivery!.id}/resend`;
    expect(page).toContain(`action="${resendAction}"`);
    const resent = await ada.submit(`/webhooks/${id}`, resendAction);
    expect([resent.status, resent.headers.get('location')]).toEqual([303, `/webhooks/${id}?done=resent#deliveries`]);
    expect((await deliveries()).map((d) => d.id)).toEqual([delivery!.id]);
    const details = await ada.get(`/webhooks/${id}/deliveries/${delivery!.id}`);
    expect(details.status).toBe(200);
    expect(details.text).toContain(`webhook.test <code>${delivery!.event_id}</code>`);
    expect(details.text).toContain('<h2>Attempts</h2>');
    expect((await mallory.get(`/webhooks/${id}/deliveries/${delivery!.id}`)).status).toBe(404);
    expect((await ada.get(`/webhooks/${id}/deliveries/wdl_nothing`)).status).toBe(404);

    await ada.submit(`/webhooks/${id}`, `/webhooks/${id}/status`, { status: 'disabled' });
    const disabled = (await ada.get(`/webhooks/${id}`)).text;
    expect(disabled).not.toContain(`action="/webhooks/${id}/test"`);
    expect(disabled).not.toContain(`action="${resendAction}"`);
    expect(disabled).toContain('A disabled endpoint receives nothing');
    for (const action of [`/webhooks/${id}/test`, resendAction]) {
      const refused = await ada.submit(`/webhooks/${id}`, action);
      expect(refused.status, action).toBe(409);
      expect(refused.text).toContain('the endpoint is disabled');
    }
    expect((await deliveries()).map((d) => d.id)).toEqual([delivery!.id]);

    for (const action of [`/webhooks/${id}/test`, resendAction]) expect((await mallory.submit('/webhooks', action)).status, action).toBe(404);
  });
});
