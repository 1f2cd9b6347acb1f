// Webhook deliveries survive a crash, on every store (docs/WEBHOOKS.md "Delivery"): the
// one-process system (deploy/launcher/main.ts, a child process) is killed with SIGKILL while its
// deliveries are in flight — the receiver holds every request unanswered — and while others wait;
// restarted over the same store (a PostgreSQL database, or the embedded store's data folder), it
// delivers every event (the dead claims' leases expire and are claimed again): at least once, none
// lost.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../services/kit/scopes.js';
import { generateSecrets } from '../services/kit/secrets.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startMainProcess, type MainProcess } from './helpers/main-process.js';
import { redisTestPrefix } from './helpers/redis-prefix.js';
import { freshPostgresDatabase, storeNames, type FreshDatabase } from './helpers/stores.js';
import { startWebhookReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { until } from './helpers/until.js';

const secret = liveKey();

describe.each(storeNames())('webhook deliveries across a SIGKILL of the system on %s', (store) => {
  const redisPrefix = redisTestPrefix();
  let db: FreshDatabase | undefined;
  let receiver: Receiver;
  let env: Record<string, string>;
  let proc: MainProcess | undefined;
  beforeAll(async () => {
    db = store === 'postgres' ? await freshPostgresDatabase({ migrated: true }) : undefined;
    receiver = await startWebhookReceiver();
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-webhook-crash-')), 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
        communities: [{ id: 'c_lab', name: 'Lab', owner: { user: 'u_ada' }, api_writes: true }],
        keys: [{ id: 'k_ada', secret, owner: { user: 'u_ada' }, scopes: [...SCOPES], requested_rate: 6000 }],
      }),
    );
    const secrets = generateSecrets();
    const folder = mkdtempSync(join(tmpdir(), 'en-webhook-crash-data-'));
    env = {
      ...(db ? { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, ...redisPrefix.env } : { DATABASE_URL: '', REDIS_URL: '', DATA_DIR: join(folder, 'data') }),
      SEED_FILE: seedFile,
      API_KEY_PEPPER: secrets.apiKeyPepper,
      CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
      CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
      OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
      OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
      ORCID_API_URL: 'off',
      OPENALEX_API_URL: 'off',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    };
    proc = await startMainProcess(env);
  }, 300_000);
  afterAll(async () => {
    await proc?.kill('SIGTERM');
    await receiver?.close();
    await db?.drop();
    await redisPrefix.cleanup();
  });

  it('killed with deliveries in flight and waiting, then restarted: every event is delivered', async () => {
    const call = (method: string, path: string, body?: unknown) => request(proc!.restUrl, method, path, { headers: bearer(secret), body });
    const created = await call('POST', '/v1/webhook_endpoints', { url: receiver.url('/hold/crash'), events: ['member.added'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const add = async (names: string[]) => {
      const added = await call('POST', '/v1/communities/c_lab/members', { members: names.map((name) => ({ email: `${name}@example.org`, name })) });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    };
    await add(['one', 'two', 'three', 'four', 'five']);
    // Every one of the five in flight: sent, and held unanswered by the receiver.
    const heldIds = () => new Set(receiver.at('/hold/crash').map((r) => String(r.headers['webhook-id'])));
    await until(heldIds, (ids) => ids.size === 5, 900);
    await add(['six', 'seven', 'eight']);
    await proc!.kill('SIGKILL');
    receiver.answerHeld();
    const before = receiver.at('/hold/crash').length;

    proc = await startMainProcess(env);
    const events = (await call('GET', '/v1/events?type=member.added&limit=100')).body.events as Array<{ id: string }>;
    expect(events).toHaveLength(8);
    const eventIds = new Set(events.map((e) => e.id));
    // Answered after the restart: every event at least once (the five in flight again, once their dead claims' leases ran out).
    const answered = () => new Set(receiver.at('/hold/crash').slice(before).map((r) => String(r.headers['webhook-id'])));
    await until(answered, (ids) => [...eventIds].every((id) => ids.has(id)), 900);
    const log = await until(
      () => call('GET', `/v1/webhook_endpoints/${created.body.id}/deliveries?limit=100`),
      (r) => r.body.deliveries.length === 8 && r.body.deliveries.every((d: { status: string }) => d.status === 'succeeded'),
      900,
    );
    expect(new Set(log.body.deliveries.map((d: { event_id: string }) => d.event_id))).toEqual(eventIds);
  }, 240_000);
});
