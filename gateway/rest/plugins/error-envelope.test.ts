// Fastify's own failures come out in our envelope with our codes, and a 5xx reveals nothing.
// A bare app with the real plugin and the real body limit; the product's POST routes use the same.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../app.js';
import errorEnvelope from './error-envelope.js';

describe('error envelope', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ bodyLimit: BODY_LIMIT_BYTES, genReqId: () => 'req_fixed' });
    await app.register(errorEnvelope);
    app.post('/echo', async (request) => ({ got: request.body }));
    app.get('/boom', async () => {
      throw new Error('connection to db.internal:5432 failed, password=hunter2');
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  const envelope = (code: string) => ({ error: { code, message: expect.any(String), request_id: 'req_fixed' } });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ a: 'x'.repeat(BODY_LIMIT_BYTES) }) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual(envelope('payload_too_large'));
  });

  it('accepts a body just under the limit', async () => {
    const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ a: 'x'.repeat(BODY_LIMIT_BYTES - 100) }) });
    expect(res.statusCode).toBe(200);
  });

  it('answers unparseable JSON, an empty JSON body and a foreign content type with 400 bad_request', async () => {
    for (const [type, payload] of [['application/json', '{"a":'], ['application/json', ''], ['text/csv', 'a,b']]) {
      const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': type! }, payload });
      expect(res.statusCode, `${type} ${payload}`).toBe(400);
      expect(res.json()).toEqual(envelope('bad_request'));
    }
  });

  it('answers a crash with 500 internal and a fixed message', async () => {
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'internal', message: 'internal error', request_id: 'req_fixed' } });
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('db.internal');
  });

  it('answers an unknown route with 404 not_found', async () => {
    const res = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(envelope('not_found'));
  });
});
