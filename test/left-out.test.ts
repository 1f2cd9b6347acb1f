// A run without the stores says which suites it left out (test/helpers/left-out.ts, the global setup).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';
import { leftOutNotice } from './helpers/left-out.js';

describe('the left-out notice', () => {
  it('names every test/postgres suite and the PostgreSQL and Redis runs when neither store is set', () => {
    const lines = leftOutNotice({});
    const suites = readdirSync(join(repoRoot, 'test', 'postgres')).filter((f) => f.endsWith('.test.ts'));
    expect(suites.length).toBeGreaterThan(0);
    for (const suite of suites) expect(lines[0]).toContain(`test/postgres/${suite}`);
    expect(lines.join('\n')).toMatch(/PostgreSQL runs/);
    expect(lines.join('\n')).toMatch(/Redis runs/);
  });

  it('names what is still left out when only one store is set', () => {
    const lines = leftOutNotice({ DATABASE_URL: 'postgres://x' }).join('\n');
    expect(lines).toMatch(/REDIS_URL not set\): test\/postgres\//);
    expect(lines).not.toMatch(/PostgreSQL runs/);
  });

  it('says nothing when both stores are set', () => {
    expect(leftOutNotice({ DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' })).toEqual([]);
  });
});
