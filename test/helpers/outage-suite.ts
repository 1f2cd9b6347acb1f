// The outage suite, run on each topology (test/postgres/dependency-outage-*.test.ts): a system on a
// Redis and a PostgreSQL database of its own, and what a client, a readiness probe and the logs see
// while Redis is frozen (SIGSTOP), killed and restarted, and while the database refuses connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAOS_COMMUNITY, writeChaosSeed } from './chaos-seed.js';
import { bearer, request } from './http.js';
import { liveKey } from './keys.js';
import {
  captureLogs, eventually, expectUnavailable, mcpToolErrorCode, me, otherComplaints, readyz, stateLines, timed,
} from './outage-checks.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';
import { csrfTokenOf, SettingsClient } from './settings-browser-http.js';
import { allowConnections, refuseConnections } from './refusing-database.js';
import { freshPostgresDatabase, type FreshDatabase } from './stores.js';

export interface OutageSystem {
  restUrl: string;
  /** The MCP endpoint, when the topology serves one. */
  mcpUrl?: string;
  /** The settings web app, when the topology serves it. */
  settingsUrl?: string;
  /** The gateway's admin server. */
  adminUrl: string;
  /** Each process's log lines from its start on. */
  processes: Array<{ role: string; logs: ReturnType<typeof captureLogs> }>;
  stop(): Promise<void>;
}

/** Starts the topology on this environment (DATABASE_URL, REDIS_URL, SEED_FILE, the bounds). */
export type StartOutageSystem = (env: Record<string, string>) => Promise<OutageSystem>;

/** Measured answers, printed at the end of a suite (docs/OPERATIONS.md quotes them). */
const measured: Record<string, number[]> = {};
const measure = (what: string, ms: number) => (measured[what] ??= []).push(ms);

export function outageSuite(topology: string, start: StartOutageSystem): void {
  describe(`dependency outages, ${topology}`, () => {
    const secret = liveKey();
    let redis: OwnRedis;
    let db: FreshDatabase;
    let sys: OutageSystem;
    const marks = new Map<string, number>();

    beforeAll(async () => {
      redis = await startOwnRedis();
      db = await freshPostgresDatabase({ migrated: true });
      sys = await start({ DATABASE_URL: db.url, REDIS_URL: redis.url, SEED_FILE: writeChaosSeed('k_outage', secret) });
    }, 300_000);
    afterAll(async () => {
      await sys?.stop();
      await redis?.stop();
      if (db) await allowConnections(db.url).catch(() => undefined);
      await db?.drop();
      console.log(`measured answers (${topology}), ms:`, JSON.stringify(measured));
    });

    const markLogs = () => {
      for (const p of sys.processes) marks.set(p.role, p.logs.lines.length);
    };
    /** Each process's lines since markLogs(), once the lines of the last requests are out. */
    const logsSinceMark = async () => {
      await new Promise((r) => setTimeout(r, 500));
      return sys.processes.map((p) => ({ role: p.role, lines: p.logs.since(marks.get(p.role) ?? 0) }));
    };
    /** One line when it went down and one when it came back, in each process that saw it; nothing else. */
    const expectOneLinePerChange = async (dependency: 'redis' | 'database', seenBy: string) => {
      // A process logs "back" at its first call that succeeds: a worker between its polls may not
      // have made one yet. Wait until every process that logged the outage has logged its end.
      const settled = async () =>
        (await logsSinceMark()).every(({ lines }) => {
          const state = stateLines(lines, dependency);
          return state.back >= state.down;
        });
      await eventually(`every process logs ${dependency} back`, settled, 30_000).catch(() => undefined);
      const logs = await logsSinceMark();
      for (const { role, lines } of logs) {
        const state = stateLines(lines, dependency);
        expect(state.down, `${role}: ${dependency} down lines`).toBeLessThanOrEqual(1);
        expect(state.back, `${role}: ${dependency} back lines`).toBe(state.down);
        expect(state.stillDown, role).toBe(0);
        expect(otherComplaints(lines), `${role}: other warnings and errors`).toEqual([]);
      }
      expect(stateLines(logs.find((l) => l.role === seenBy)!.lines, dependency).down, `${seenBy} logged ${dependency} down`).toBe(1);
    };
    const ready = async () => (await readyz(sys.adminUrl)).status === 200;
    const served = async () => (await me(sys.restUrl, secret)).status === 200;

    it('answers while Redis and the database answer; /readyz names both', async () => {
      expect((await me(sys.restUrl, secret)).status).toBe(200);
      const probe = await readyz(sys.adminUrl);
      expect(probe.status).toBe(200);
      expect(probe.checks).toMatchObject({ redis: 'ok', database: 'ok' });
    });

    it('a frozen Redis (SIGSTOP): 503 unavailable with Retry-After within the bound, /readyz names redis within its bound; thawed, back at once; one log line per change', async () => {
      markLogs();
      redis.freeze();
      try {
        // Redis never answers while frozen and every other bound outlasts the test (OUTAGE_ENV):
        // an answer at all is Redis's command bound at work.
        const one = await timed(() => me(sys.restUrl, secret));
        expectUnavailable(one.value, 'GET /v1/me');
        measure('frozen redis: GET /v1/me', one.ms);
        // Many at once: each bounded alike, none logged on its own.
        const many = await timed(() => Promise.all(Array.from({ length: 30 }, () => me(sys.restUrl, secret))));
        for (const res of many.value) expectUnavailable(res, 'GET /v1/me (30 at once)');
        measure('frozen redis: 30 × GET /v1/me at once', many.ms);
        if (sys.mcpUrl) expect(await mcpToolErrorCode(sys.mcpUrl, secret, 'whoami')).toBe('unavailable');
        const probe = await readyz(sys.adminUrl);
        expect(probe.status).toBe(503);
        expect(probe.checks.redis).toBe('failing');
        measure('frozen redis: /readyz', probe.ms);
      } finally {
        redis.thaw();
      }
      measure('frozen redis: back after SIGCONT', await eventually('GET /v1/me answers again', served, 5000));
      await eventually('/readyz ready again', ready, 5000);
      await expectOneLinePerChange('redis', 'gateway');
    }, 60_000);

    it('a killed Redis: 503 unavailable with Retry-After at once, /readyz names redis; restarted, back within a second or two; one log line per change', async () => {
      markLogs();
      await redis.kill();
      const one = await timed(() => me(sys.restUrl, secret));
      expectUnavailable(one.value, 'GET /v1/me');
      measure('killed redis: GET /v1/me', one.ms);
      const probe = await readyz(sys.adminUrl);
      expect(probe.status).toBe(503);
      expect(probe.checks.redis).toBe('failing');
      await redis.restart();
      measure('killed redis: back after restart', await eventually('GET /v1/me answers again', served, 5000));
      await eventually('/readyz ready again', ready, 5000);
      await expectOneLinePerChange('redis', 'gateway');
    }, 60_000);

    it('a database refusing connections: 503 unavailable with Retry-After for a read, a write, an idempotent POST and a settings page, /readyz names the database; allowed again, back; one log line per change', async () => {
      const add = (headers: Record<string, string> = {}) =>
        request(sys.restUrl, 'POST', `/v1/communities/${CHAOS_COMMUNITY}/members`, {
          headers: { ...bearer(secret), ...headers },
          body: { members: [{ name: 'Outage Person', email: 'outage@example.org' }] },
        });
      // A signed-out browser holding a sign-in link's page (its form and CSRF pair), opened before.
      const browser = sys.settingsUrl ? new SettingsClient(sys.settingsUrl) : undefined;
      const linkPage = await browser?.get(`/sign-in/link?token=${'t'.repeat(43)}`);
      markLogs();
      await refuseConnections(db.url);
      try {
        const read = await timed(() => me(sys.restUrl, secret));
        expectUnavailable(read.value, 'GET /v1/me');
        measure('database refusing: GET /v1/me', read.ms);
        expectUnavailable(await add(), 'POST members');
        const keyed = await timed(() => add({ 'idempotency-key': 'outage-add-1' }));
        expectUnavailable(keyed.value, 'POST members with Idempotency-Key');
        measure('database refusing: idempotent POST', keyed.ms);
        if (sys.mcpUrl) expect(await mcpToolErrorCode(sys.mcpUrl, secret, 'whoami')).toBe('unavailable');
        if (sys.settingsUrl) {
          // A signed-in page (its session is looked up in identity's store): a page that says to
          // try again, with Retry-After, and no error line of its own (checked below).
          const page = await fetch(`${sys.settingsUrl}/keys`, { headers: { cookie: `en_settings=${'o'.repeat(43)}` }, redirect: 'manual' });
          expect(page.status).toBe(503);
          expect(page.headers.get('retry-after')).toBe('1');
          expect(await page.text()).toContain('unavailable for a moment');
          // Redeeming a link: the same page, not "this link is unknown" (the link is not used up).
          const redeemed = await browser!.send('POST', '/sign-in/link', { _csrf: csrfTokenOf(linkPage!.text), token: 't'.repeat(43) });
          expect(redeemed.status).toBe(503);
          expect(redeemed.text).toContain('unavailable for a moment');
        }
        const probe = await readyz(sys.adminUrl);
        expect(probe.status).toBe(503);
        expect(probe.checks.database).toBe('failing');
        expect(probe.checks.redis).toBe('ok');
        measure('database refusing: /readyz', probe.ms);
      } finally {
        await allowConnections(db.url);
      }
      measure('database refusing: back after ALLOW_CONNECTIONS true', await eventually('GET /v1/me answers again', served, 10_000));
      await eventually('/readyz ready again', ready, 10_000);
      // The refused idempotent POST left no claim behind: the same key now runs.
      const retried = await add({ 'idempotency-key': 'outage-add-1' });
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      await expectOneLinePerChange('database', 'gateway');
    }, 90_000);
  });
}
