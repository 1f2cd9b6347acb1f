// One service down degrades its features, not the API (multi-process topology: each role in its
// own process on PostgreSQL and Redis). With billing killed the gateway stays ready, the routes that
// do not need billing answer, the ones that do answer 503 `unavailable` with Retry-After, the
// gateway's metrics say which dependency is down and which calls failed, and its log names the
// backend and the method. Billing restarted, the gateway reaches it again within seconds.
// docs/OPERATIONS.md "Readiness", docs/OBSERVABILITY.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTopology, type Topology } from '../../deploy/local/launch.js';
import { processLine, supervise } from '../../deploy/local/supervise.js';
import { CHAOS_COMMUNITY, writeChaosSeed } from '../helpers/chaos-seed.js';
import { bearer, request } from '../helpers/http.js';
import { liveKey } from '../helpers/keys.js';
import { captureLogs, eventually, expectUnavailable, me, readyz, type LogLine } from '../helpers/outage-checks.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/stores.js';

const secret = liveKey();
const keyId = `k_degrade_${Date.now().toString(36)}`;
/** How soon after billing is ready again every caller must reach it. */
const RECOVERY_BOUND_MS = 5000;

/** The value of one series on a Prometheus page (undefined when absent). */
function sample(page: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.indexOf('}'));
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('a service down degrades its features, not the API (multi-process topology)', () => {
  let db: FreshDatabase;
  let topology: Topology;
  let supervisor: ReturnType<typeof supervise> | undefined;
  const logs = new Map<string, ReturnType<typeof captureLogs>>();
  const gatewayAdmin = () => topology.processes.find((p) => p.role === 'gateway')!.adminUrl;
  const metricsPage = async () => (await fetch(`${gatewayAdmin()}/metrics`)).text();
  const linesOf = (role: string): LogLine[] => logs.get(role)?.lines ?? [];

  beforeAll(async () => {
    db = await freshPostgresDatabase({ migrated: true });
    topology = await launchTopology(
      { DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL!, SEED_FILE: writeChaosSeed(keyId, secret), LOG_LEVEL: 'debug', READINESS_TIMEOUT_MS: '1000' },
      { readyTimeoutMs: 240_000 },
    );
    for (const p of topology.processes) logs.set(p.role, captureLogs(p.child));
    const added = await request(topology.restUrl, 'POST', `/v1/communities/${CHAOS_COMMUNITY}/members`, {
      headers: bearer(secret),
      body: { members: [{ name: 'Grace Hopper', email: 'grace@example.org' }] },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await (supervisor ?? topology)?.stop();
    await db?.drop();
  });

  it('every process serving: ready, every dependency up, identity and billing each log the calls they served', async () => {
    expect((await me(topology.restUrl, secret)).status).toBe(200);
    const probe = await readyz(gatewayAdmin());
    expect(probe.status).toBe(200);
    expect(Object.keys(probe.checks).sort()).toEqual(['database', 'redis']);
    const page = await metricsPage();
    for (const dependency of ['identity', 'communities', 'search', 'enrichment', 'billing', 'postgres', 'redis']) {
      expect(sample(page, 'expertnet_dependency_up', { dependency }), dependency).toBe(1);
    }
    expect(sample(page, 'grpc_client_handled_total', { grpc_target_service: 'billing', grpc_method: 'GetCallerUsage', grpc_code: 'OK' })).toBeGreaterThan(0);
    await eventually('identity and billing logged the calls', async () =>
      ['identity', 'billing'].every((role) => linesOf(role).some((l) => l.msg === 'gRPC call served' && l.role === role && l.level === 20)),
    );
    expect(linesOf('gateway').every((l) => l.role === 'gateway')).toBe(true);
  });

  it('billing killed: the gateway stays ready, communities and roster reads answer 200, GET /v1/me 503 with Retry-After; metrics and the log name billing', async () => {
    await topology.stopRole('billing', 'SIGKILL');
    const mark = linesOf('gateway').length;
    const answered = await me(topology.restUrl, secret);
    expectUnavailable(answered, 'GET /v1/me');
    expect(JSON.stringify(answered.body)).not.toMatch(/billing|grpc|127\.0\.0\.1/i);
    expect((await request(topology.restUrl, 'GET', '/v1/communities', { headers: bearer(secret) })).status).toBe(200);
    const roster = await request(topology.restUrl, 'GET', `/v1/communities/${CHAOS_COMMUNITY}/members`, { headers: bearer(secret) });
    expect(roster.status, JSON.stringify(roster.body)).toBe(200);
    expect(JSON.stringify(roster.body)).toContain('Grace Hopper');
    const probe = await readyz(gatewayAdmin());
    expect(probe.status).toBe(200);

    const page = await metricsPage();
    expect(sample(page, 'expertnet_dependency_up', { dependency: 'billing' })).toBe(0);
    expect(sample(page, 'expertnet_dependency_up', { dependency: 'identity' })).toBe(1);
    expect(sample(page, 'grpc_client_handled_total', { grpc_target_service: 'billing', grpc_code: 'UNAVAILABLE' })).toBeGreaterThan(0);
    expect(sample(page, 'api_errors_total', { surface: 'rest', code: 'unavailable' })).toBeGreaterThan(0);
    await eventually('the gateway named the backend and the method', async () =>
      linesOf('gateway').slice(mark).some((l) => l.msg === 'a backend service is unavailable' && l.backend === 'billing' && l.method === 'GetCallerUsage' && l.level === 40),
    );
  });

  it(`billing restarted: GET /v1/me answers 200 within ${RECOVERY_BOUND_MS} ms of billing being ready, and billing is reported up again`, async () => {
    // Failing calls in the meantime, as clients would keep trying: the gateway's channel backs off.
    const trying = (async () => {
      for (let i = 0; i < 20; i++) await me(topology.restUrl, secret);
    })();
    await topology.startRole('billing');
    const readyAt = performance.now();
    await trying;
    let lastStatus = 0;
    while (performance.now() - readyAt < RECOVERY_BOUND_MS && lastStatus !== 200) {
      lastStatus = (await me(topology.restUrl, secret)).status;
      if (lastStatus !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(lastStatus, `GET /v1/me still failing ${RECOVERY_BOUND_MS} ms after billing was ready`).toBe(200);
    expect(sample(await metricsPage(), 'expertnet_dependency_up', { dependency: 'billing' })).toBe(1);
  });

  it('npm run topology: prints the gateway\'s start-up lines and each process\'s line; a billing process that dies is started again, its line printed anew, and served again', async () => {
    const printed: string[] = [];
    supervisor = supervise(topology, (line) => printed.push(line), { echo: false });
    expect(printed).toContain(`REST API:  ${topology.restUrl}/v1`);
    const alive = (role: string) => topology.processes.filter((p) => p.role === role && p.child.exitCode === null && p.child.signalCode === null);
    const dying = alive('billing')[0]!;
    expect(printed).toContain(processLine(dying));
    dying.child.kill('SIGKILL');
    await eventually('a new billing process', async () => alive('billing').length === 1 && alive('billing')[0] !== dying, 120_000);
    const started = alive('billing')[0]!;
    await eventually('its line printed once it is ready', async () => printed.includes(processLine(started)), 120_000);
    expect(started.child.pid).not.toBe(dying.child.pid);
    await eventually('GET /v1/me answers again', async () => (await me(topology.restUrl, secret)).status === 200, 10_000);
  }, 180_000);
});
