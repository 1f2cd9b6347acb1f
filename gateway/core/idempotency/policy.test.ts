import { describe, expect, it } from 'vitest';
import { checkIdempotencyKey, errorCodeOf, isStoredOutcome, operationHeaders, REFUSAL_CODES } from './policy.js';

describe('Idempotency-Key check', () => {
  it('accepts 1 to 255 printable ASCII characters, space included', () => {
    expect(checkIdempotencyKey('a')).toEqual({ ok: true, key: 'a' });
    expect(checkIdempotencyKey('x'.repeat(255)).ok).toBe(true);
    expect(checkIdempotencyKey('order 42 / retry #1 ~!@$%^&*()').ok).toBe(true);
    expect(checkIdempotencyKey(['k1']).ok).toBe(true);
  });

  it('refuses empty, too long, control, non-ASCII and repeated keys', () => {
    for (const bad of ['', 'x'.repeat(256), 'a\tb', 'a\x7fb', 'a\x00b', 'café', 'Ã©', ['a', 'b'], []]) {
      const check = checkIdempotencyKey(bad);
      expect(check.ok, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('stored outcomes', () => {
  it('stores success and unknown error codes, never a 5xx or a refusal', () => {
    expect(isStoredOutcome(200, undefined)).toBe(true);
    expect(isStoredOutcome(201, undefined)).toBe(true);
    expect(isStoredOutcome(202, undefined)).toBe(true);
    expect(isStoredOutcome(409, 'some_new_code')).toBe(true);
    expect(isStoredOutcome(400, undefined)).toBe(true);
    expect(isStoredOutcome(500, undefined)).toBe(false);
    expect(isStoredOutcome(502, 'search_unavailable')).toBe(false);
    expect(isStoredOutcome(503, 'unavailable')).toBe(false);
    for (const code of REFUSAL_CODES) expect(isStoredOutcome(422, code)).toBe(false);
    expect([...REFUSAL_CODES]).toEqual(expect.arrayContaining(['owner_consent_required', 'unprocessable', 'forbidden', 'not_found']));
  });

  it('reads the code of an error envelope', () => {
    expect(errorCodeOf('{"error":{"code":"forbidden","message":"no"}}')).toBe('forbidden');
    expect(errorCodeOf(Buffer.from('{"error":{"code":"unprocessable"}}'))).toBe('unprocessable');
    expect(errorCodeOf('not json')).toBeUndefined();
    expect(errorCodeOf('null')).toBeUndefined();
    expect(errorCodeOf(null)).toBeUndefined();
  });
});

describe('operation headers', () => {
  it('keeps what the operation set or changed, not the edge headers already there', () => {
    const before = { 'x-request-id': 'req_1', 'ratelimit-limit': '5', link: '<a>; rel="x"' };
    const after = {
      ...before,
      'content-type': 'application/json; charset=utf-8',
      location: '/v1/x/1',
      'retry-after': 3,
      'content-length': '12',
      'set-cookie': ['a=1', 'b=2'],
    };
    expect(operationHeaders(before, after)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      location: '/v1/x/1',
      'retry-after': '3',
      'set-cookie': ['a=1', 'b=2'],
    });
    expect(operationHeaders({ link: 'a' }, { link: 'b' })).toEqual({ link: 'b' });
  });
});
