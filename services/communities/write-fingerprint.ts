// What a consent approval covers (#43): one write, named by its fingerprint — a hash of the
// operation, the community and the write's canonical body or target (object keys sorted, so the
// same JSON in another key order is the same write). The first retry of that write within the
// window after approval goes through and uses the approval up; the same write again, and any other
// write, even the same operation on the same community, is queued as a request of its own. API writes for good stay the owner's explicit attestation.
import { createHash } from 'node:crypto';
import type { WriteOperation } from './member-write.repository.js';

/** How long an approval waits for its write to be retried: 24 hours after it is given. */
export const APPROVAL_WINDOW_SECONDS = 24 * 3600;

/** JSON with every object's keys in order: one text for one value, whatever order it came in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fingerprint of a write: operation, community and target (canonical JSON text), hashed. */
export function writeFingerprint(operation: WriteOperation, communityId: string, target: string): string {
  return createHash('sha256').update(JSON.stringify([operation, communityId, target])).digest('hex');
}
