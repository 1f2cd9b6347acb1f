// Delegation-budget consumption and the payer settings' storage: counted per organization,
// community and UTC month, once per reference whatever the races.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, storeNames } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { delegatedInMonth, recordDelegatedCharge, utcMonth } from './funding-consumption.js';
import { createPayerSettings } from './payer-settings.repository.js';

describe('utcMonth', () => {
  it('names the UTC month, whatever the local time zone', () => {
    expect(utcMonth(new Date('2025-01-31T23:59:59Z'))).toBe('2025-01');
    expect(utcMonth(new Date('2025-02-01T00:00:00Z'))).toBe('2025-02');
    expect(utcMonth(new Date('2025-12-01T00:30:00+02:00'))).toBe('2025-11');
  });
});

describe.each(storeNames())('delegation consumption and payer settings on %s', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
  });
  afterAll(async () => close());

  it('adds charges per organization, community and month', async () => {
    const may = new Date('2025-05-10T12:00:00Z');
    await recordDelegatedCharge(db, { organizationId: 'o_a', communityId: 'c_1', credits: 3, at: may });
    await recordDelegatedCharge(db, { organizationId: 'o_a', communityId: 'c_1', credits: 4, at: new Date('2025-05-31T23:00:00Z') });
    await recordDelegatedCharge(db, { organizationId: 'o_a', communityId: 'c_1', credits: 100, at: new Date('2025-06-01T00:00:00Z') });
    await recordDelegatedCharge(db, { organizationId: 'o_a', communityId: 'c_2', credits: 50, at: may });
    await recordDelegatedCharge(db, { organizationId: 'o_b', communityId: 'c_1', credits: 50, at: may });
    expect(await delegatedInMonth(db, 'o_a', 'c_1', may)).toBe(7);
    expect(await delegatedInMonth(db, 'o_a', 'c_1', new Date('2025-06-15T00:00:00Z'))).toBe(100);
    expect(await delegatedInMonth(db, 'o_a', 'c_3', may)).toBe(0);
  });

  it('counts a reference once, even when reported concurrently', async () => {
    const at = new Date('2025-07-01T00:00:00Z');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => recordDelegatedCharge(db, { organizationId: 'o_r', communityId: 'c_r', credits: 8, reference: 'enrichment_deep:r:p', at })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await delegatedInMonth(db, 'o_r', 'c_r', at)).toBe(8);
  });

  it('joins a caller’s transaction when given one', async () => {
    const at = new Date('2025-08-01T00:00:00Z');
    await expect(db.transaction(async (tx) => {
      await recordDelegatedCharge(tx, { organizationId: 'o_t', communityId: 'c_t', credits: 2, reference: 'search:t', at });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await delegatedInMonth(db, 'o_t', 'c_t', at)).toBe(0);
  });

  it('refuses a charge that is not a positive whole number', async () => {
    await expect(recordDelegatedCharge(db, { organizationId: 'o_a', communityId: 'c_1', credits: 0 })).rejects.toThrow(RangeError);
    await expect(recordDelegatedCharge(db, { organizationId: 'o_a', communityId: 'c_1', credits: 1.5 })).rejects.toThrow(RangeError);
  });

  it('reads a community’s own funding before the organization-wide one', async () => {
    const settings = createPayerSettings(db);
    expect(await settings.fundingFor('o_f', 'c_1')).toBeUndefined();
    await settings.setFunding({ organization_id: 'o_f', community_id: '', standing_funding: true, delegation_budget_per_month: 0 });
    expect(await settings.fundingFor('o_f', 'c_1')).toMatchObject({ community_id: '', standing_funding: true });
    await settings.setFunding({ organization_id: 'o_f', community_id: 'c_1', standing_funding: false, delegation_budget_per_month: 40 });
    expect(await settings.fundingFor('o_f', 'c_1')).toMatchObject({ community_id: 'c_1', standing_funding: false, delegation_budget_per_month: 40 });
    expect(await settings.fundingFor('o_f', 'c_2')).toMatchObject({ community_id: '', standing_funding: true });
  });

  it('saves, replaces and clears a global-search preference', async () => {
    const settings = createPayerSettings(db);
    await settings.setGlobalPreference('u_p', { type: 'organization', id: 'o_x' });
    await settings.setGlobalPreference('u_p', { type: 'user', id: 'u_p' });
    expect(await settings.globalPreference('u_p')).toEqual({ type: 'user', id: 'u_p' });
    await settings.setGlobalPreference('u_p', undefined);
    expect(await settings.globalPreference('u_p')).toBeUndefined();
  });
});
