import { describe, expect, it } from 'vitest';
import { bodyFingerprint, canonicalJson } from './fingerprint.js';

describe('canonical JSON fingerprint', () => {
  it('sorts object keys recursively and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('gives bodies that parse to the same value the same fingerprint', () => {
    const a = JSON.parse('{"members":[{"email":"a@x.org","role":"member"}],"note":"caf\\u00e9"}');
    const b = JSON.parse('{ "note" : "café", "members" : [ { "role":"member", "email":"a@x.org" } ] }');
    expect(bodyFingerprint(a)).toBe(bodyFingerprint(b));
    expect(bodyFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(bodyFingerprint({ n: 1 })).toBe(bodyFingerprint({ n: 1.0 }));
  });

  it('tells different bodies apart', () => {
    expect(bodyFingerprint({ a: 1 })).not.toBe(bodyFingerprint({ a: '1' }));
    expect(bodyFingerprint({ a: 1 })).not.toBe(bodyFingerprint({ a: 1, b: null }));
    expect(bodyFingerprint({ 'a,"b"': 1 })).not.toBe(bodyFingerprint({ a: 1, b: 1 }));
    expect(bodyFingerprint([])).not.toBe(bodyFingerprint({}));
  });

  it('writes a missing body as null', () => {
    expect(canonicalJson(undefined)).toBe('null');
    expect(bodyFingerprint(undefined)).toBe(bodyFingerprint(null));
  });

  it('walks without recursion and refuses a value nested deeper than 64 levels with 400 bad_request', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => bodyFingerprint(deep)).toThrow(expect.objectContaining({ status: 400, code: 'bad_request' }));
    let ok: unknown = 1;
    for (let i = 0; i < 64; i++) ok = { a: ok };
    expect(canonicalJson(ok)).toBe(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`);
  });
});
