// The finished searches a search process keeps for their polls (finished-jobs.ts): only a job that
// can no longer change, only to the credential that started it, and never up to its expiry.
import { describe, expect, it } from 'vitest';
import { createFinishedJobs, EXPIRY_MARGIN_MS } from './finished-jobs.js';
import type { JobRow } from './search-jobs.repository.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const HOUR = 3_600_000;

function job(id: string, over: Partial<JobRow> = {}): JobRow {
  return {
    id, credential_id: 'k_ana', caller: {}, query: 'q', scope: 'all', named_community_id: null, community_ids: [], include_public: true,
    reach_ids: [], result_limit: 20, payer_type: 'user', payer_id: 'u_ana', status: 'complete', matches: [], error: null, attempts: 1,
    lease_until: null, charged_at: new Date(NOW - 1000), created_at: new Date(NOW - 2000), finished_at: new Date(NOW - 1500),
    expires_at: new Date(NOW + HOUR), request_id: null, ...over,
  };
}

describe('finished searches kept for their polls', () => {
  it('keeps a complete, charged job and answers it to its own credential only', () => {
    const kept = createFinishedJobs(10, () => NOW);
    kept.keep(job('srch_1'));
    expect(kept.find('srch_1', 'k_ana')?.id).toBe('srch_1');
    expect(kept.find('srch_1', 'k_ana2')).toBeUndefined();
    expect(kept.find('srch_2', 'k_ana')).toBeUndefined();
  });

  it('keeps nothing that can still change: pending, running, failed, or not yet recorded as charged', () => {
    const kept = createFinishedJobs(10, () => NOW);
    kept.keep(job('srch_pending', { status: 'pending', expires_at: null, charged_at: null }));
    kept.keep(job('srch_running', { status: 'running', expires_at: null, charged_at: null }));
    kept.keep(job('srch_failed', { status: 'failed', charged_at: null }));
    kept.keep(job('srch_uncharged', { charged_at: null }));
    expect(kept.size).toBe(0);
  });

  it('stops answering a margin before the job expires (the store then decides), and drops it', () => {
    let now = NOW;
    const kept = createFinishedJobs(10, () => now);
    kept.keep(job('srch_1'));
    now = NOW + HOUR - EXPIRY_MARGIN_MS - 1;
    expect(kept.find('srch_1', 'k_ana')).toBeDefined();
    now = NOW + HOUR - EXPIRY_MARGIN_MS;
    expect(kept.find('srch_1', 'k_ana')).toBeUndefined();
    expect(kept.size).toBe(0);
    kept.keep(job('srch_late', { expires_at: new Date(now + EXPIRY_MARGIN_MS - 1) }));
    expect(kept.size).toBe(0);
  });

  it('holds at most its limit, letting the oldest kept go first', () => {
    const kept = createFinishedJobs(3, () => NOW);
    for (const id of ['srch_1', 'srch_2', 'srch_3', 'srch_4']) kept.keep(job(id));
    expect(kept.size).toBe(3);
    expect(kept.find('srch_1', 'k_ana')).toBeUndefined();
    expect(kept.find('srch_4', 'k_ana')?.id).toBe('srch_4');
  });

  it('holds at most its budget of matches, letting the oldest kept go first; a job over the whole budget is not kept', () => {
    const matches = (n: number) => Array.from({ length: n }, (_, i) => ({ profileId: `p_${i}`, name: 'A person' })) as unknown as JobRow['matches'];
    const one = JSON.stringify(matches(10)).length;
    const kept = createFinishedJobs(100, () => NOW, one * 2);
    kept.keep(job('srch_1', { matches: matches(10) }));
    kept.keep(job('srch_2', { matches: matches(10) }));
    kept.keep(job('srch_3', { matches: matches(10) }));
    expect(kept.size).toBe(2);
    expect(kept.find('srch_1', 'k_ana')).toBeUndefined();
    kept.keep(job('srch_big', { matches: matches(30) }));
    expect(kept.find('srch_big', 'k_ana')).toBeUndefined();
    expect(kept.size).toBe(2);
  });
});
