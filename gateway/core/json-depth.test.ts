import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}[1]${'}'.repeat(levels - 1)}`;

describe('JSON nesting bound', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels of objects and arrays and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan('['.repeat(100_000))).toBe(true);
  });

  it('counts depth, not the number of siblings', () => {
    expect(nestsDeeperThan(`[${Array.from({ length: 10_000 }, () => '[]').join(',')}]`)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '['.repeat(500) }))).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: `\\"${'{'.repeat(500)}` }))).toBe(false);
    expect(nestsDeeperThan(`["\\\\"${',['.repeat(MAX_JSON_DEPTH)}`)).toBe(true);
  });
});
