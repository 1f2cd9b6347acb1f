// The providers' HTTP client against real servers: retries that recover, give up in time, honour
// Retry-After and leave 404 alone; the per-process rate limit; the caller's abort signal; and
// failures that never carry the request's secrets.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_PEOPLE, startProviderReplay, type ProviderReplay } from '../../../test/helpers/provider-replay.js';
import { BACKOFF_MS, JsonClient, ProviderError } from './http.js';

let replay: ProviderReplay | undefined;
afterEach(async () => {
  await replay?.close();
  replay = undefined;
});

const employments = `/${FIXTURE_PEOPLE.withOrcid.orcid}/employments`;

describe('JsonClient', () => {
  it('retries a 503 and returns the answer of the retry', async () => {
    replay = await startProviderReplay({ failFirst: 1 });
    const client = new JsonClient({ baseUrl: replay.orcidUrl, timeoutMs: 2000, retries: 2 });
    const body = (await client.get(employments)) as { 'affiliation-group': unknown[] };
    expect(body['affiliation-group']).toHaveLength(FIXTURE_PEOPLE.withOrcid.orcidEmployments);
    const [first, second] = replay.requests;
    expect(replay.requests).toHaveLength(2);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(BACKOFF_MS - 5);
    expect(first!.headers.accept).toBe('application/json');
  });

  it('gives up after its retries with the last failure', async () => {
    replay = await startProviderReplay({ failFirst: 10 });
    const client = new JsonClient({ baseUrl: replay.orcidUrl, timeoutMs: 2000, retries: 2 });
    await expect(client.get(employments)).rejects.toMatchObject({ kind: 'unavailable', message: 'answered HTTP 503' });
    expect(replay.requests).toHaveLength(3);
  });

  it('waits at least what Retry-After asks before retrying', async () => {
    replay = await startProviderReplay({ failFirst: 1, retryAfterSeconds: 1 });
    const client = new JsonClient({ baseUrl: replay.orcidUrl, timeoutMs: 2000, retries: 1 });
    await client.get(employments);
    const [first, second] = replay.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(990);
  });

  it('does not retry a 404', async () => {
    replay = await startProviderReplay();
    const client = new JsonClient({ baseUrl: replay.orcidUrl, timeoutMs: 2000, retries: 3 });
    await expect(client.get(`/${FIXTURE_PEOPLE.orcidNotFound.orcid}/works`)).rejects.toMatchObject({ kind: 'not_found' });
    expect(replay.requests).toHaveLength(1);
  });

  it('times each attempt out and retries it', async () => {
    // The provider answers nothing until released: the call ends only if its timeouts end it.
    let release = () => {};
    replay = await startProviderReplay({ hold: new Promise<void>((resolve) => (release = resolve)) });
    const client = new JsonClient({ baseUrl: replay.orcidUrl, timeoutMs: 150, retries: 1 });
    await expect(client.get(employments)).rejects.toMatchObject({ kind: 'unavailable', message: 'no answer within 150 ms' });
    expect(replay.requests).toHaveLength(2);
    release();
  });

  it('reports an unreachable host as a connection failure after its retries', async () => {
    // Port 2 has no listener and, being privileged, is never handed out as an ephemeral port (a port
    // found free and released could be taken meanwhile); port 1 is on fetch's list of bad ports.
    const client = new JsonClient({ baseUrl: 'http://127.0.0.1:2', timeoutMs: 1000, retries: 2 });
    const error = await client.get('/anything').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'unavailable', message: 'connection failed (ECONNREFUSED)' });
  });

  it('spaces requests to the rate limit, shared by every client of the provider', async () => {
    replay = await startProviderReplay();
    const options = { baseUrl: replay.openAlexUrl, timeoutMs: 5000, retries: 0, ratePerSecond: 2 };
    const [a, b] = [new JsonClient(options), new JsonClient(options)];
    // When each request leaves (the limiter's release), not when the provider reads it: arrival
    // times carry the loopback's and the event loop's delays, which a busy machine stretches.
    const sent: number[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (...args: Parameters<typeof fetch>) => {
      sent.push(performance.now());
      return realFetch(...args);
    };
    const started = performance.now();
    try {
      await Promise.all([a, b, a, b, a].map((client, i) => client.get('/authors', { search: `person ${i}` })));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(1500);
    expect(replay.requests).toHaveLength(5);
    // Never more than 2 requests in any second.
    for (let i = 2; i < sent.length; i++) expect(sent[i]! - sent[i - 2]!).toBeGreaterThanOrEqual(990);
  });

  it('stops at once when the caller aborts, waiting or not', async () => {
    // The provider answers nothing until released, and the attempt's own timeout is a minute: the
    // call ends only if the abort ends it.
    let release = () => {};
    replay = await startProviderReplay({ hold: new Promise<void>((resolve) => (release = resolve)) });
    const client = new JsonClient({ baseUrl: replay.orcidUrl, timeoutMs: 60_000, retries: 2 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('run cancelled')), 100);
    await expect(client.get(employments, {}, controller.signal)).rejects.toThrow('run cancelled');
    release();
    expect(replay.requests).toHaveLength(1);
    await expect(client.get(employments, {}, controller.signal)).rejects.toThrow('run cancelled');
    expect(replay.requests).toHaveLength(1);
  });

  it('posts JSON with its headers and reports a refusal without them', async () => {
    replay = await startProviderReplay();
    const keyed = new JsonClient({ baseUrl: replay.summaryUrl, timeoutMs: 2000, retries: 0, headers: { authorization: 'Bearer sk-secret-1' } });
    const body = (await keyed.post('/chat/completions', { model: 'm', messages: [] })) as { model: string };
    expect(body.model).toBe('m');
    expect(replay.requests[0]).toMatchObject({ method: 'POST', body: '{"model":"m","messages":[]}' });
    expect(replay.requests[0]!.headers['content-type']).toBe('application/json');

    const keyless = new JsonClient({ baseUrl: replay.summaryUrl, timeoutMs: 2000, retries: 2 });
    const error = (await keyless.post('/chat/completions', {}).catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ kind: 'rejected', message: 'answered HTTP 401' });
    expect(replay.requests).toHaveLength(2); // a 401 is not retried
  });

  it('reads text the store cannot keep as storable text: NUL dropped, a lone surrogate escape as U+FFFD', async () => {
    const server = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"name":"Bad \\ud800 Na\\u0000me","topics":["\\udfff","ok \\ud83e\\udde0"]}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new JsonClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 2000, retries: 0 });
      expect(await client.get('/x')).toEqual({ name: 'Bad \ufffd Name', topics: ['\ufffd', 'ok \ud83e\udde0'] });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reads a body that is not JSON as a bad response', async () => {
    const server = createServer((_req, res) => res.end('<html>maintenance</html>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new JsonClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 2000, retries: 2 });
      await expect(client.get('/x')).rejects.toMatchObject({ kind: 'bad_response' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
