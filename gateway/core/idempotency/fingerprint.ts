// The fingerprint of a request body: sha256 (hex) of its canonical JSON — object keys sorted
// (recursively, by UTF-16 code units as Array.prototype.sort compares them), no whitespace, array
// order kept, strings and numbers as JSON.stringify writes them. So two bodies that parse to the
// same JSON value have the same fingerprint whatever their key order, spacing or escapes.
import { createHash } from 'node:crypto';

/** Canonical JSON of a parsed JSON value. `undefined` (no body) is written as `null`. */
export function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // JSON.parse yields finite numbers only; -0 prints as 0, like JSON.stringify.
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'object': {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
    }
    default:
      // Not produced by a JSON parser (bigint, function, symbol): refuse rather than guess.
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
  }
}

/** sha256 (hex) of the canonical JSON of a parsed request body. */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}
