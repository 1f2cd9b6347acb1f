// The credentials a fuzzed request carries: none, a key of each scope and kind, and the many ways
// of presenting a bad one. `none` marks the requests that must be answered 401 first.
import fc from 'fast-check';
import { SCOPES } from '../../services/kit/scopes.js';
import type { FuzzKeys } from './fuzz-system.js';
import { liveKey } from './keys.js';

export interface FuzzCredential {
  label: string;
  headers: Array<[string, string]>;
  /** No Authorization and no X-API-Key header at all. */
  none: boolean;
}

const unknownKey = liveKey(); // well-formed, never stored

export function credentialArbitrary(keys: FuzzKeys): fc.Arbitrary<FuzzCredential> {
  const bearerOf = (label: string, secret: string): FuzzCredential => ({ label, headers: [['Authorization', `Bearer ${secret}`]], none: false });
  const valid = [
    ...SCOPES.map((s) => bearerOf(`key with ${s} only`, keys.byScope[s])),
    bearerOf('key with every scope', keys.all),
    bearerOf('test key', keys.test),
    bearerOf('legacy organization key', keys.organization),
    bearerOf('another user’s key', keys.otherUser),
    bearerOf('free plan key', keys.freePlan),
    { label: 'X-API-Key', headers: [['X-API-Key', keys.all]], none: false } as FuzzCredential,
  ];
  const broken = fc.oneof(
    fc.constantFrom<FuzzCredential>(
      bearerOf('unknown well-formed key', unknownKey),
      bearerOf('broken checksum', `${keys.all.slice(0, -1)}${keys.all.endsWith('A') ? 'B' : 'A'}`),
      bearerOf('JWT-shaped garbage', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'),
      { label: 'Basic scheme', headers: [['Authorization', 'Basic dXNlcjpwYXNz']], none: false },
      { label: 'empty Bearer', headers: [['Authorization', 'Bearer ']], none: false },
      { label: 'two different keys', headers: [['Authorization', `Bearer ${keys.all}`], ['X-API-Key', keys.otherUser]], none: false },
      { label: 'JWT in X-API-Key', headers: [['X-API-Key', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']], none: false },
    ),
    // Printable ASCII only: control characters in a header break the message itself (the raw suite sends those).
    fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 80 })
      .map((s) => bearerOf('random bearer value', s.trim() || 'x')),
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<FuzzCredential>({ label: 'no credential', headers: [], none: true }) },
    { weight: 6, arbitrary: fc.constantFrom(...valid) },
    { weight: 2, arbitrary: broken },
  );
}
