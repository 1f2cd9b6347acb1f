// The free self-enrich cooldown: one free self-enrich per user per 30 days, claimed atomically.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { claimFreeSelfEnrich } from './self-enrich.repository.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(storeNames())('free self-enrich cooldown on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
  });
  afterAll(async () => close());

  it('allows the first, refuses another run within 30 days, allows it again after', async () => {
    const t0 = new Date('2025-01-01T12:00:00Z');
    const first = await claimFreeSelfEnrich(db, { userId: 'u_a', runId: 'r1', now: t0 });
    expect(first).toMatchObject({ allowed: true, repeated: false, availableAt: new Date(t0.getTime() + 30 * DAY) });

    const inside = await claimFreeSelfEnrich(db, { userId: 'u_a', runId: 'r2', now: new Date(t0.getTime() + 30 * DAY - 1000) });
    expect(inside).toMatchObject({ allowed: false, runId: 'r1', availableAt: new Date(t0.getTime() + 30 * DAY) });

    const later = new Date(t0.getTime() + 30 * DAY);
    const after = await claimFreeSelfEnrich(db, { userId: 'u_a', runId: 'r2', now: later });
    expect(after).toMatchObject({ allowed: true, repeated: false, availableAt: new Date(later.getTime() + 30 * DAY) });
  });

  it('metering the same run again is not a second use (before or after the cooldown)', async () => {
    const t0 = new Date('2025-02-01T00:00:00Z');
    await claimFreeSelfEnrich(db, { userId: 'u_b', runId: 'r1', now: t0 });
    for (const at of [new Date(t0.getTime() + DAY), new Date(t0.getTime() + 40 * DAY)]) {
      const again = await claimFreeSelfEnrich(db, { userId: 'u_b', runId: 'r1', now: at });
      expect(again).toMatchObject({ allowed: true, repeated: true, enrichedAt: t0, availableAt: new Date(t0.getTime() + 30 * DAY) });
    }
  });

  it('concurrent claims of distinct runs let exactly one through', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => claimFreeSelfEnrich(db, { userId: 'u_race', runId: `r${i}` })));
    const allowed = results.filter((r) => r.allowed);
    expect(allowed).toHaveLength(1);
    for (const r of results.filter((x) => !x.allowed)) expect(r.runId).toBe(allowed[0]!.runId);
  });

  it('users are independent', async () => {
    expect((await claimFreeSelfEnrich(db, { userId: 'u_c', runId: 'x' })).allowed).toBe(true);
    expect((await claimFreeSelfEnrich(db, { userId: 'u_d', runId: 'x' })).allowed).toBe(true);
  });
});
