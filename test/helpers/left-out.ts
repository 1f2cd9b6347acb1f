// Vitest global setup: says, at the start of a run, which store-backed tests the run leaves out.
// Without DATABASE_URL and REDIS_URL the suites in test/postgres are not collected and the
// store-backed suites run on the embedded store only; a run that silently checked less than it
// could would read as a full pass.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../services/kit/paths.js';

/** The lines to print: empty when the run leaves nothing out. */
export function leftOutNotice(env: NodeJS.ProcessEnv = process.env): string[] {
  const lines: string[] = [];
  const missing = ['DATABASE_URL', 'REDIS_URL'].filter((name) => !env[name]);
  if (missing.length > 0) {
    const suites = readdirSync(join(repoRoot, 'test', 'postgres')).filter((f) => f.endsWith('.test.ts')).sort();
    lines.push(`Left out (${missing.join(' and ')} not set): ${suites.map((f) => `test/postgres/${f}`).join(', ')}`);
  }
  if (!env.DATABASE_URL) lines.push('Left out (DATABASE_URL not set): the PostgreSQL runs of the store-backed suites (they run on the embedded store only)');
  if (!env.REDIS_URL) lines.push('Left out (REDIS_URL not set): the Redis runs of the rate-limiter suites (they run on the in-process limiter only)');
  if (lines.length > 0) lines.push('Set DATABASE_URL=postgres://… and REDIS_URL=redis://… to run them (README.md, "Tests").');
  return lines;
}

export default function setup(): void {
  const lines = leftOutNotice();
  if (lines.length > 0) console.warn(`\n${lines.join('\n')}\n`);
}
