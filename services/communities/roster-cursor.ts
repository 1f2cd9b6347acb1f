// The roster's opaque `after` cursor: the keyset position (joined_at, profile_id) of the last
// member of a page, bound to its community and sealed with an HMAC so that a client can neither
// forge a position nor replay a cursor against another community.
//
//   <base64url(JSON {v, c, t, p})> "." <base64url(HMAC-SHA256(key, first part))>
//
// The key is derived from the server pepper (HMAC(pepper, 'roster-cursor-v1')), so it needs no
// storage of its own, is the same on every replica, and rotating the pepper only invalidates
// cursors (clients restart from the first page). `t` is the exact joined_at in UTC with
// microseconds as PostgreSQL keeps it: a JS Date (milliseconds) would round it and repeat or skip
// members who joined within the same millisecond.
//
// The position is not a secret (the page already showed that member); the seal only guarantees
// that a cursor came from us, for this community. Any failure answers the same 400 with the same
// message, whatever went wrong, so a probe learns nothing.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { domainError } from '../kit/grpc/errors.js';

export interface RosterPosition {
  joinedAt: string;
  profileId: string;
}

const VERSION = 1;
/** Far above any real cursor (ids are ≤ 128 characters): refuse before hashing a large input. */
const MAX_CURSOR_LENGTH = 1024;
const TAG_LENGTH = 43; // 32 bytes in unpadded base64url
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** The text form the repository produces for joined_at (see listRosterPages). */
const EXACT_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export function rosterCursorKey(pepper: string): Buffer {
  return createHmac('sha256', pepper).update('roster-cursor-v1').digest();
}

function tag(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}

export function encodeRosterCursor(key: Buffer, communityId: string, position: RosterPosition): string {
  const body = Buffer.from(JSON.stringify({ v: VERSION, c: communityId, t: position.joinedAt, p: position.profileId })).toString('base64url');
  return `${body}.${tag(key, body)}`;
}

const invalid = () => domainError('invalid_request', 'after: not a cursor of this roster; start again without `after`');

/** The position a cursor names, when it is ours and for this community; otherwise 400 invalid_request. */
export function decodeRosterCursor(key: Buffer, communityId: string, cursor: string): RosterPosition {
  if (cursor.length > MAX_CURSOR_LENGTH) throw invalid();
  const [body, given, ...extra] = cursor.split('.');
  if (!body || !given || extra.length > 0 || !BASE64URL.test(body) || given.length !== TAG_LENGTH || !BASE64URL.test(given)) {
    throw invalid();
  }
  // Constant-time comparison of equal-length tags: no timing hint about a forged cursor.
  if (!timingSafeEqual(Buffer.from(given), Buffer.from(tag(key, body)))) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const p = payload as { v?: unknown; c?: unknown; t?: unknown; p?: unknown };
  // A sealed cursor is well-formed unless the format changed; checked anyway (defence in depth).
  if (
    typeof p !== 'object' || p === null || p.v !== VERSION || p.c !== communityId ||
    typeof p.t !== 'string' || !EXACT_UTC.test(p.t) || typeof p.p !== 'string' || !ID.test(p.p)
  ) {
    throw invalid();
  }
  return { joinedAt: p.t, profileId: p.p };
}
