// The fingerprint of a request body: sha256 (hex) of its canonical JSON — object keys sorted
// (recursively, by UTF-16 code units as Array.prototype.sort compares them), no whitespace, array
// order kept, strings and numbers as JSON.stringify writes them. So two bodies that parse to the
// same JSON value have the same fingerprint whatever their key order, spacing or escapes.
//
// The walk is iterative (an explicit stack), so no body can overflow the call stack; a value nested
// deeper than MAX_JSON_DEPTH is refused with 400, as the edge refuses such a body before parsing it.
import { createHash } from 'node:crypto';
import { ApiError } from '../api-error.js';
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from '../json-depth.js';

/** A piece of output still to write: literal text, or a value at a nesting depth. */
type Task = { text: string } | { value: unknown; depth: number };

function scalar(value: unknown): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // JSON.parse yields finite numbers only; -0 prints as 0, like JSON.stringify.
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    default:
      // Not produced by a JSON parser (bigint, function, symbol): refuse rather than guess.
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
  }
}

/** Canonical JSON of a parsed JSON value. `undefined` (no body) is written as `null`. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: Task[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    if ('text' in task) {
      out.push(task.text);
      continue;
    }
    const { value: v, depth } = task;
    if (v === undefined || v === null) {
      out.push('null');
      continue;
    }
    if (typeof v !== 'object') {
      out.push(scalar(v));
      continue;
    }
    if (depth >= MAX_JSON_DEPTH) throw new ApiError(400, 'bad_request', TOO_DEEP_MESSAGE);
    // Pushed in reverse, so they pop in order.
    const parts: Task[] = [];
    if (Array.isArray(v)) {
      parts.push({ text: '[' });
      v.forEach((item, i) => {
        if (i > 0) parts.push({ text: ',' });
        parts.push({ value: item, depth: depth + 1 });
      });
      parts.push({ text: ']' });
    } else {
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      parts.push({ text: '{' });
      keys.forEach((key, i) => {
        parts.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` });
        parts.push({ value: record[key], depth: depth + 1 });
      });
      parts.push({ text: '}' });
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]!);
  }
  return out.join('');
}

/** sha256 (hex) of the canonical JSON of a parsed request body. */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}
