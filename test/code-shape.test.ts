// The shape of the hand-written code, checked on every file: none over 400 lines, and no block of
// six or more lines written twice in product code (jscpd, a copy detector, over gateway/, services/,
// deploy/ and proto/). Generated code (proto/gen, the OpenAPI document) is left out: it is written
// by scripts and checked for drift elsewhere.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';

const MAX_LINES = 400;
const PRODUCT = ['gateway', 'services', 'deploy', 'proto'];

// jscpd's ES module build imports a CommonJS dependency by a path Node does not resolve; its
// CommonJS build works.
const { detectClones } = createRequire(import.meta.url)('jscpd') as typeof import('jscpd');

function handWritten(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return ['node_modules', 'gen', 'fixtures'].includes(name) ? [] : handWritten(path);
    return /\.(ts|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

describe('code shape', () => {
  it(`no hand-written file is over ${MAX_LINES} lines`, () => {
    const files = [...PRODUCT, 'test'].flatMap((d) => handWritten(join(repoRoot, d)));
    const over = files
      .map((f) => ({ file: relative(repoRoot, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });

  it('no block of six or more lines is repeated in product code', async () => {
    const clones = await detectClones({
      path: PRODUCT.map((d) => join(repoRoot, d)),
      ignore: ['**/*.test.ts', '**/gen/**', '**/node_modules/**', '**/fixtures/**'],
      format: ['typescript'],
      minLines: 6,
      minTokens: 40,
      silent: true,
      reporters: [],
    });
    const where = (d: { sourceId: string; start: { line: number }; end: { line: number } }) =>
      `${relative(repoRoot, d.sourceId)}:${d.start.line}-${d.end.line}`;
    expect(clones.map((c) => `${where(c.duplicationA)} repeats ${where(c.duplicationB)}`)).toEqual([]);
  }, 120_000);
});
