// The docs are reference a newcomer can find: README.md's "Docs" section lists every entry of docs/
// (a page added without a line there is linked from nowhere), and docs/BENCHMARKS.md stays a page
// one reads, not a log (its history is in git).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The README's "## Docs" section. */
function docsSection(): string {
  const start = readme.indexOf('\n## Docs\n');
  if (start < 0) throw new Error('README.md has no "## Docs" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('the docs index', () => {
  it('links every entry of docs/ from the README', () => {
    const section = docsSection();
    const missing = readdirSync(join(repoRoot, 'docs')).filter((name) => !section.includes(`](docs/${name}`));
    expect(missing, 'docs/ entries without a line in README.md "Docs"').toEqual([]);
  });

  it('keeps docs/BENCHMARKS.md to at most 250 lines', () => {
    const lines = readFileSync(join(repoRoot, 'docs', 'BENCHMARKS.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
