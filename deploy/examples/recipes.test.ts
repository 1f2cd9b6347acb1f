// The recipes of the recorded examples: one at least for every endpoint of the table (naming the
// endpoints that have none), each for an operation the table has and under a name unique to it,
// and the normalisation that makes a recording the same on every run.
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../gateway/core/contract/endpoints.js';
import { endpointsWithoutRecipe } from './capture.js';
import { EXAMPLE_CLOCK, normaliseRun } from './normalise.js';
import { RECIPES } from './recipes.js';

describe('example recipes', () => {
  it('record every endpoint of the table', () => {
    const missing = endpointsWithoutRecipe();
    expect(missing, `endpoints without a recipe (add one to deploy/examples/recipes.ts): ${missing.join(', ')}`).toEqual([]);
  });

  it('name the endpoint that lacks one', () => {
    const withoutMe = RECIPES.filter((r) => r.operationId !== 'getMe');
    expect(endpointsWithoutRecipe(withoutMe)).toEqual(['getMe (GET /v1/me)']);
  });

  it('refer to operations of the table, under names unique per operation', () => {
    const operations = new Set(ENDPOINTS.map((e) => e.operationId));
    for (const r of RECIPES) expect(operations.has(r.operationId), r.operationId).toBe(true);
    const keys = RECIPES.map((r) => `${r.operationId}/${r.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of RECIPES) expect(r.name).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});

describe('normaliseRun', () => {
  const started = Date.parse('2026-03-01T12:00:00.000Z');
  const run = {
    run_id: 'run_Ab3dEf6hIj9kLm0n',
    location: '/v1/me/enrich/runs/run_Ab3dEf6hIj9kLm0n',
    other: 'run_Zz3dEf6hIj9kLm0n',
    search: 'srch_0123456789abcdef0123456789abcdef',
    prefix: 'svc_test_t5LAD6',
    cursor: 'eyJ2IjoxLCJjIjoiY19tYWNoaW5l.Q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c',
    seeded: { id: 'p_0308', joined_at: '2024-08-12T06:15:00.000Z' },
    created_at: '2026-03-01T12:00:05.123Z',
    finished_at: '2026-03-01T12:00:04.000Z',
  };
  const out = normaliseRun(run, started);

  it('replaces what the run made up by stand-ins of the same shape, the same value by the same stand-in', () => {
    expect(out.run_id).toMatch(/^run_[A-Za-z0-9]{16}$/);
    expect(out.run_id).not.toBe(run.run_id);
    expect(out.location).toBe(`/v1/me/enrich/runs/${out.run_id}`);
    expect(out.other).not.toBe(out.run_id);
    expect(out.search).toMatch(/^srch_[0-9a-f]{32}$/);
    expect(out.search).not.toBe(run.search);
    expect(out.prefix).toMatch(/^svc_test_[A-Za-z0-9]{6}$/);
    expect(out.prefix).not.toBe(run.prefix);
    expect(out.cursor.split('.')[0]).toBe(run.cursor.split('.')[0]);
    expect(out.cursor.split('.')[1]).not.toBe(run.cursor.split('.')[1]);
  });

  it('keeps the demo data, and puts the moments of the run on a fixed clock in their order', () => {
    expect(out.seeded).toEqual(run.seeded);
    expect(out.finished_at).toBe(new Date(EXAMPLE_CLOCK).toISOString());
    expect(out.created_at).toBe(new Date(EXAMPLE_CLOCK + 1000).toISOString());
  });

  it('is the same for the same input', () => {
    expect(normaliseRun(run, started)).toEqual(out);
  });
});
