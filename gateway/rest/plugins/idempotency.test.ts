// The idempotency plugin in a bare Fastify app over the real stores: the error envelope, a
// stand-in for authentication (the caller comes from test headers, and it sets a per-request
// RateLimit-Remaining like the rate-limit plugin does), the plugin, and routes whose handler
// counts its executions and answers what the body asks for.
import { spawnSync } from 'node:child_process';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Caller, CredentialKind } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Database } from '../../../services/kit/db/database.js';
import { allowConnections, refuseConnections } from '../../../test/helpers/refusing-database.js';
import { openTestDatabase, storeNames } from '../../../test/helpers/stores.js';
import { ApiError } from '../../core/api-error.js';
import { THIS_PROCESS } from '../../core/idempotency/holder.js';
import { LEASE_SECONDS } from '../../core/idempotency/policy.js';
import { IdempotencyStore } from '../../core/idempotency/store.js';
import errorEnvelope from './error-envelope.js';
import idempotency from './idempotency.js';
import type {} from './authentication.js'; // request.caller
import type {} from './scopes.js'; // config.idempotent

/** Sets request.caller from x-test-caller (credential id) and x-test-kind (api_key | oauth). */
const standInAuthentication = fp(
  async (app) => {
    app.decorateRequest('caller', null);
    let counted = 0;
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id);
      const id = request.headers['x-test-caller'];
      if (typeof id !== 'string') throw new ApiError(401, 'unauthorized', 'missing credentials');
      request.caller = Caller.fromPartial({
        credentialId: id,
        credential:
          request.headers['x-test-kind'] === 'oauth' ? CredentialKind.CREDENTIAL_KIND_OAUTH : CredentialKind.CREDENTIAL_KIND_API_KEY,
      });
      reply.header('ratelimit-remaining', String(++counted));
    });
  },
  { name: 'authentication', dependencies: ['error-envelope'] },
);

interface TestBody {
  tag: string;
  outcome?: '201' | '422' | '500' | 'sleep' | 'custom409' | '204';
  extra?: unknown;
}

function buildApp(db: Database, executions: Map<string, number>, purgeIntervalMs?: number): FastifyInstance {
  let requests = 0;
  const app = Fastify({ genReqId: () => `req_${++requests}` });
  app.register(errorEnvelope);
  app.register(standInAuthentication);
  app.register(idempotency, { db, purgeIntervalMs });
  const run = async (params: { id: string }, body: TestBody, reply: import('fastify').FastifyReply) => {
    const count = (executions.get(body.tag) ?? 0) + 1;
    executions.set(body.tag, count);
    switch (body.outcome) {
      case '422':
        throw new ApiError(422, 'unprocessable', 'writes are not attested for this community');
      case '500':
        throw new Error('boom');
      case 'custom409':
        throw new ApiError(409, 'already_member', 'a new code the edge does not know');
      case '204':
        return reply.code(204).send();
      case 'sleep':
        await new Promise((r) => setTimeout(r, 300));
    }
    return reply
      .code(201)
      .header('location', `/things/${params.id}/${count}`)
      .send({ id: params.id, execution: count, at: process.hrtime.bigint().toString() });
  };
  app.post<{ Params: { id: string }; Body: TestBody }>('/things/:id', { config: { idempotent: true } }, (request, reply) =>
    run(request.params, request.body, reply),
  );
  app.post<{ Params: { id: string }; Body: TestBody }>('/plain/:id', (request, reply) => run(request.params, request.body, reply));
  return app;
}

describe.each(storeNames())('idempotency plugin on %s', (storeName) => {
  let db: Database;
  let close: () => Promise<void>;
  let app: FastifyInstance;
  const executions = new Map<string, number>();
  let n = 0;
  const fresh = (prefix = 't') => `${prefix}-${storeName}-${++n}`;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(storeName));
    app = buildApp(db, executions);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await close();
  });

  const post = (body: TestBody | string, key?: string, options: { caller?: string; kind?: string; url?: string } = {}) =>
    app.inject({
      method: 'POST',
      url: options.url ?? '/things/c1',
      headers: {
        'content-type': 'application/json',
        'x-test-caller': options.caller ?? 'key_a',
        ...(options.kind ? { 'x-test-kind': options.kind } : {}),
        ...(key !== undefined ? { 'idempotency-key': key } : {}),
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('replays the stored response verbatim with Idempotent-Replayed: true', async () => {
    const tag = fresh();
    const first = await post({ tag, outcome: '201' }, `key-${tag}`);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with other key order and spacing is the same request.
    const again = await post(`{ "outcome": "201",   "tag": "${tag}" }`, `key-${tag}`);
    expect(again.statusCode).toBe(201);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers.location).toBe(`/things/c1/1`);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Per-request edge headers are this request's, not the stored ones.
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(again.headers['ratelimit-remaining']).not.toBe(first.headers['ratelimit-remaining']);
    expect(executions.get(tag)).toBe(1);
  });

  it('answers the same key with another body 422 unprocessable, running nothing', async () => {
    const tag = fresh();
    expect((await post({ tag, outcome: '201' }, `key-${tag}`)).statusCode).toBe(201);
    const other = await post({ tag, outcome: '201', extra: 1 }, `key-${tag}`);
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('unprocessable');
    expect(other.json().error.request_id).toBe(other.headers['x-request-id']);
    expect(executions.get(tag)).toBe(1);
  });

  it('runs 20 parallel identical requests once: the others are 409 conflict (Retry-After: the lease left) or replays', async () => {
    const tag = fresh();
    const responses = await Promise.all(Array.from({ length: 20 }, () => post({ tag, outcome: 'sleep' }, `key-${tag}`)));
    expect(executions.get(tag)).toBe(1);
    const originals = responses.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const r of responses) {
      if (r === originals[0]) continue;
      if (r.statusCode === 409) {
        expect(r.json().error.code).toBe('conflict');
        // The holder's lease was just taken (or renewed): nearly all of it is left.
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(LEASE_SECONDS - 1);
        expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(LEASE_SECONDS);
      } else {
        expect(r.statusCode).toBe(201);
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.rawPayload.equals(originals[0]!.rawPayload)).toBe(true);
      }
    }
    expect(responses.filter((r) => r.statusCode === 409).length).toBeGreaterThan(0);
    const after = await post({ tag, outcome: 'sleep' }, `key-${tag}`);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(executions.get(tag)).toBe(1);
  });

  it('stores nothing for a 5xx: a retry runs again', async () => {
    const tag = fresh();
    const failed = await post({ tag, outcome: '500' }, `key-${tag}`);
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal');
    const retry = await post({ tag, outcome: '500' }, `key-${tag}`);
    expect(retry.statusCode).toBe(500);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.get(tag)).toBe(2);
  });

  it('stores nothing for a refusal (422 unprocessable): a retry after the fix runs', async () => {
    const tag = fresh();
    const refused = await post({ tag, outcome: '422' }, `key-${tag}`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.code).toBe('unprocessable');
    const again = await post({ tag, outcome: '422' }, `key-${tag}`);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.get(tag)).toBe(2);
    const rows = await db.query(`SELECT 1 FROM edge.idempotency_records WHERE idempotency_key = $1`, [`key-${tag}`]);
    expect(rows).toEqual([]);
  });

  it('stores and replays an outcome with an error code that is not a refusal', async () => {
    const tag = fresh();
    const first = await post({ tag, outcome: 'custom409' }, `key-${tag}`);
    expect(first.statusCode).toBe(409);
    const again = await post({ tag, outcome: 'custom409' }, `key-${tag}`);
    expect(again.statusCode).toBe(409);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true); // verbatim: the original request_id inside
    expect(executions.get(tag)).toBe(1);
  });

  it('replays a bodiless 204', async () => {
    const tag = fresh();
    expect((await post({ tag, outcome: '204' }, `key-${tag}`)).statusCode).toBe(204);
    const again = await post({ tag, outcome: '204' }, `key-${tag}`);
    expect(again.statusCode).toBe(204);
    expect(again.payload).toBe('');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(executions.get(tag)).toBe(1);
  });

  it('scopes keys to the credential', async () => {
    const tag = fresh();
    expect((await post({ tag, outcome: '201' }, `key-${tag}`, { caller: 'key_a' })).statusCode).toBe(201);
    const other = await post({ tag, outcome: '201' }, `key-${tag}`, { caller: 'key_b' });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    const oauth = await post({ tag, outcome: '201' }, `key-${tag}`, { caller: 'key_a', kind: 'oauth' });
    expect(oauth.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.get(tag)).toBe(3);
  });

  it('scopes keys to the concrete path, however it is percent-encoded', async () => {
    const tag = fresh();
    expect((await post({ tag, outcome: '201' }, `key-${tag}`, { url: '/things/abc' })).statusCode).toBe(201);
    const encoded = await post({ tag, outcome: '201' }, `key-${tag}`, { url: '/things/a%62c?x=1' });
    expect(encoded.headers['idempotent-replayed']).toBe('true');
    const otherId = await post({ tag, outcome: '201' }, `key-${tag}`, { url: '/things/xyz' });
    expect(otherId.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.get(tag)).toBe(2);
  });

  it('refuses an invalid key 400 invalid_request and runs nothing', async () => {
    const tag = fresh();
    for (const key of ['', 'k'.repeat(256), 'a\tb', 'a\u0001b', 'a\u007fb', 'café', 'ключ']) {
      const res = await post({ tag, outcome: '201' }, key);
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.message).toMatch(/Idempotency-Key/);
    }
    expect(executions.get(tag)).toBeUndefined();
    expect((await post({ tag, outcome: '201' }, 'k'.repeat(255))).statusCode).toBe(201);
    expect((await post({ tag, outcome: '201' }, 'with spaces ~!')).statusCode).toBe(201);
  });

  it('runs every request without the header', async () => {
    const tag = fresh();
    await post({ tag, outcome: '201' });
    await post({ tag, outcome: '201' });
    expect(executions.get(tag)).toBe(2);
  });

  it('ignores the header on a route without the flag', async () => {
    const tag = fresh();
    for (const key of [`key-${tag}`, `key-${tag}`, '']) {
      const res = await post({ tag, outcome: '201' }, key, { url: '/plain/c1' });
      expect(res.statusCode).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(executions.get(tag)).toBe(3);
  });

  it('replaces an expired record', async () => {
    const tag = fresh();
    await post({ tag, outcome: '201' }, `key-${tag}`);
    expect((await post({ tag, outcome: '201' }, `key-${tag}`)).headers['idempotent-replayed']).toBe('true');
    await db.query(`UPDATE edge.idempotency_records SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`, [
      `key-${tag}`,
    ]);
    const again = await post({ tag, outcome: '201', extra: 'a different body is fine once expired' }, `key-${tag}`);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.get(tag)).toBe(2);
  });

  it('answers 409 while another replica holds the key (Retry-After: the seconds left on its lease), and takes a stale claim over', async () => {
    const tag = fresh();
    const other = new IdempotencyStore(db, { holder: { ...THIS_PROCESS, host: 'another-host.example', instance: 'other' } });
    const scope = { credentialKind: 'api_key', credentialId: 'key_a', route: 'POST /things/c1', key: `key-${tag}` };
    expect((await other.claim(scope, 'whatever')).kind).toBe('claimed');
    await db.query(`UPDATE edge.idempotency_records SET lease_until = now() + interval '7 seconds' WHERE idempotency_key = $1`, [`key-${tag}`]);
    const busy = await post({ tag, outcome: '201' }, `key-${tag}`);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error).toMatchObject({ code: 'conflict', request_id: busy.headers['x-request-id'] });
    expect(busy.headers['retry-after']).toBe('7');
    expect(executions.get(tag)).toBeUndefined();
    // That replica died where its death cannot be seen: once its lease has run out the key is taken over.
    await db.query(`UPDATE edge.idempotency_records SET lease_until = now() - interval '1 second' WHERE idempotency_key = $1`, [
      `key-${tag}`,
    ]);
    const taken = await post({ tag, outcome: '201' }, `key-${tag}`);
    expect(taken.statusCode).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(executions.get(tag)).toBe(1);
    expect((await post({ tag, outcome: '201' }, `key-${tag}`)).headers['idempotent-replayed']).toBe('true');
  });

  it('takes over at once a live-leased claim whose holder process on this host has exited', async () => {
    const tag = fresh();
    const exited = spawnSync(process.execPath, ['-e', '']).pid!;
    const dead = new IdempotencyStore(db, { holder: { ...THIS_PROCESS, pid: exited, instance: 'exited' } });
    const scope = { credentialKind: 'api_key', credentialId: 'key_a', route: 'POST /things/c1', key: `key-${tag}` };
    expect((await dead.claim(scope, 'whatever')).kind).toBe('claimed');
    const taken = await post({ tag, outcome: '201' }, `key-${tag}`);
    expect(taken.statusCode).toBe(201);
    expect(executions.get(tag)).toBe(1);
  });

  it('purges expired records now and then', async () => {
    const purging = buildApp(db, executions, 0);
    await purging.ready();
    try {
      const tag = fresh();
      await db.query(
        `INSERT INTO edge.idempotency_records (credential_kind, credential_id, route, idempotency_key, fingerprint, state,
           claim_token, lease_until, expires_at)
         VALUES ('api_key', 'key_old', 'POST /things/c1', $1, 'fp', 'in_flight', 't', now(), now() - interval '1 hour')`,
        [`key-${tag}`],
      );
      await purging.inject({
        method: 'POST',
        url: '/things/c1',
        headers: { 'x-test-caller': 'key_a', 'idempotency-key': `key2-${tag}` },
        payload: { tag, outcome: '201' },
      });
      await expect
        .poll(async () => db.query(`SELECT 1 FROM edge.idempotency_records WHERE idempotency_key = $1`, [`key-${tag}`]))
        .toEqual([]);
    } finally {
      await purging.close();
    }
  });
});

describe.each(storeNames())('idempotency plugin without its store (%s)', (storeName) => {
  it('answers 503 unavailable (Retry-After: 1) and runs nothing', async () => {
    // A real, migrated store made to fail: the embedded one closed, PostgreSQL refusing connections.
    const { db: broken, url, close } = await openTestDatabase(storeName);
    if (url) await refuseConnections(url);
    else await close();
    const executions = new Map<string, number>();
    const app = buildApp(broken, executions);
    await app.ready();
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/things/c1',
        headers: { 'x-test-caller': 'key_a', 'idempotency-key': 'k' },
        payload: { tag: 'x', outcome: '201' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('unavailable');
      expect(res.headers['retry-after']).toBe('1');
      expect(executions.size).toBe(0);
    } finally {
      await app.close();
      if (url) {
        await allowConnections(url);
        await close();
      }
    }
  });
});
