// Prometheus metrics on the admin port: RED per HTTP route and per gRPC method, rate-limit
// refusals — and never on the public port, which answers 401 to /metrics like to anything
// unauthenticated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const adaKey = liveKey();
const slowKey = liveKey();
const enrichKey = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  profiles: [
    { id: 'p_ada', user: 'u_ada', public: true, name: 'Ada Lovelace', headline: 'Protein design' },
    { id: 'p_bo', name: 'Bo Member', headline: 'Ecologist' },
  ],
  communities: [{ id: 'c_ada', name: 'Ada’s', owner: { user: 'u_ada' }, api_writes: true }],
  memberships: [{ community: 'c_ada', profile: 'p_bo', role: 'member' }],
  wallets: [{ owner: { user: 'u_ada' }, balance: 10 }],
  keys: [
    { id: 'k_ada', secret: adaKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
    { id: 'k_slow', secret: slowKey, owner: { user: 'u_ada' }, scopes: ['search:read'], requested_rate: 1 },
    { id: 'k_enrich', secret: enrichKey, owner: { user: 'u_ada' }, scopes: ['enrich:write', 'enrich:read'] },
  ],
};

/** The value of one series in a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('metrics', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ seed });
  });
  afterAll(() => sys?.stop());

  const scrape = async () => {
    const res = await fetch(`${sys.adminUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  it('count requests, errors (by API error code) and durations per route and gRPC method, and rate-limit refusals', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(adaKey) })).status).toBe(200);
    expect((await request(sys.restUrl, 'GET', '/v1/me')).status).toBe(401);
    let refused = 0;
    for (let i = 0; i < 10 && refused === 0; i++) {
      if ((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(slowKey) })).status === 429) refused++;
    }
    expect(refused).toBe(1);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('http_server_requests_total', { method: 'GET', route: '/v1/me', status_class: '2xx' })).toBeGreaterThanOrEqual(3);
    expect(delta('http_server_requests_total', { method: 'GET', route: '/v1/me', status_class: '4xx' })).toBeGreaterThanOrEqual(2);
    expect(delta('http_server_request_duration_seconds_count', { method: 'GET', route: '/v1/me', status_class: '2xx' })).toBeGreaterThanOrEqual(3);
    expect(delta('grpc_server_handled_total', { grpc_service: 'expertnet.identity.v1.IdentityService', grpc_method: 'Authenticate', grpc_code: 'OK' })).toBeGreaterThanOrEqual(4);
    expect(delta('grpc_server_handling_seconds_count', { grpc_service: 'expertnet.billing.v1.BillingService', grpc_method: 'GetCallerUsage' })).toBeGreaterThanOrEqual(3);
    expect(delta('rate_limit_refusals_total', { refused_by: 'burst' })).toBe(1);
    // Error answers by their API error code: the missing credential and the refusal, each alone.
    expect(delta('api_errors_total', { surface: 'rest', code: 'unauthorized' })).toBe(1);
    expect(delta('api_errors_total', { surface: 'rest', code: 'rate_limited' })).toBe(1);
    expect(after).toContain('process_cpu_seconds_total');
    // Route templates only: no credential, no raw URL in any label.
    expect(after).not.toContain(adaKey);
    expect(after).not.toContain(slowKey);
  });

  it('count finished searches, their latency, credits charged and the open-job queue', async () => {
    const before = await scrape();
    const res = await request(sys.restUrl, 'POST', '/v1/search', { headers: bearer(adaKey), body: { query: 'protein', scope: 'public' } });
    expect(res.status).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('search_jobs_finished_total', { outcome: 'complete' })).toBe(1);
    expect(delta('search_job_duration_seconds_count', { outcome: 'complete' })).toBe(1);
    expect(delta('credits_charged_total', { operation: 'search' })).toBe(1);
    expect(after).toMatch(/^search_jobs_open 0$/m);
  });

  it('count enriched people, finished runs, credits charged and the open-run queue', async () => {
    const before = await scrape();
    const res = await request(sys.restUrl, 'POST', '/v1/communities/c_ada/enrich', { headers: bearer(enrichKey), body: { depth: 'quick' } });
    expect(res.status).toBe(202);
    let status = res.body.status;
    for (let i = 0; i < 100 && status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await request(sys.restUrl, 'GET', `/v1/communities/c_ada/enrich/runs/${res.body.run_id}`, { headers: bearer(enrichKey) })).body.status;
    }
    expect(status).toBe('succeeded');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('enrichment_profiles_total', { depth: 'quick', outcome: 'succeeded' })).toBe(1);
    expect(delta('enrichment_runs_finished_total', { kind: 'community', outcome: 'succeeded' })).toBe(1);
    expect(delta('credits_charged_total', { operation: 'enrichment_quick' })).toBe(1);
    expect(after).toMatch(/^enrichment_runs_open 0$/m);
  });

  it('are not served on the public port', async () => {
    const res = await request(sys.restUrl, 'GET', '/metrics');
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toContain('http_server_requests_total');
  });
});
