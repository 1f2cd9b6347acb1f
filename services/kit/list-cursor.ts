// The opaque `after` cursor of the discovery lists (communities, enrichment runs): the keyset
// position of a page's last row, bound to the list it came from (`list`: which list and, for a
// community's runs, which community), as unpadded base64url JSON.
//
// Unlike the roster's cursor it is not sealed: every page is computed from the caller's live reach
// (and, for runs, the community or the caller the list is about), so a hand-made position can only
// move the start of a list the caller may read anyway. A cursor of another list, or anything that
// does not decode to a well-formed position, answers one 400 with one fixed message.
import { domainError } from './grpc/errors.js';

const VERSION = 1;
/** Far above any real cursor (ids are ≤ 128 characters): refuse before decoding a large input. */
const MAX_CURSOR_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** The text form of a timestamp to the microsecond, as PostgreSQL keeps it (see the roster's cursor). */
export const EXACT_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A position: the last row's id, and its exact timestamp when the order is by time first. */
export interface ListPosition {
  id: string;
  at?: string;
}

export function encodeListCursor(list: string, position: ListPosition): string {
  return Buffer.from(JSON.stringify({ v: VERSION, l: list, ...position })).toString('base64url');
}

const invalid = () => domainError('invalid_request', 'after: not a cursor of this list; start again without `after`');

/** The position a cursor names, when it was made for this list; otherwise 400 invalid_request. */
export function decodeListCursor(list: string, cursor: string, timed: boolean): ListPosition {
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const p = payload as { v?: unknown; l?: unknown; id?: unknown; at?: unknown } | null;
  if (typeof p !== 'object' || p === null || p.v !== VERSION || p.l !== list || typeof p.id !== 'string' || !ID.test(p.id)) throw invalid();
  if (!timed) return { id: p.id };
  if (typeof p.at !== 'string' || !EXACT_UTC.test(p.at)) throw invalid();
  return { id: p.id, at: p.at };
}
