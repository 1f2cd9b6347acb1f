import { describe, expect, it } from 'vitest';
import { createStatementNames } from './prepared-statements.js';

describe('statement names', () => {
  it('names one text the same every time, and no more texts than its limit', () => {
    const names = createStatementNames(2);
    const a = names.nameOf('SELECT 1');
    expect(a).toMatch(/^en_[0-9a-f]{24}$/);
    expect(names.nameOf('SELECT 1')).toBe(a);
    expect(names.nameOf('SELECT 2')).toMatch(/^en_/);
    expect(names.nameOf('SELECT 3')).toBeUndefined();
    expect(names.nameOf('SELECT 1')).toBe(a);
  });

  it('gives a stale text a new name, kept from then on', () => {
    const names = createStatementNames();
    const first = names.nameOf('SELECT * FROM t')!;
    const second = names.rename('SELECT * FROM t');
    expect(second).not.toBe(first);
    expect(names.nameOf('SELECT * FROM t')).toBe(second);
  });
});
