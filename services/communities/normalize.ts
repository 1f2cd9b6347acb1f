// Normalization of the identifiers a bulk add matches people by (docs/COMMUNITIES.md). Each
// function returns the canonical value to store and the key to match on, or a reason the value is
// unusable. The keys mirror the generated columns of migrations/002_member_writes.sql (email_key,
// linkedin_key, orcid_key), so a profile written by any path matches the same way.

import * as identifiers from '../kit/identifiers.js';

export { orcidCheckCharacter } from '../kit/identifiers.js';

export type Normalized = { ok: true; value: string; key: string } | { ok: false; reason: string };

/** The shared normaliser's answer, its problem told with the field and the value given. */
function told(field: string, input: string, result: identifiers.Normalized): Normalized {
  return result.ok ? result : { ok: false, reason: `${field} ${JSON.stringify(input)} ${result.problem}` };
}

/** Email: trimmed and lower-cased; the whole address is the key. */
export const normalizeEmail = (input: string): Normalized => told('email', input, identifiers.normalizeEmail(input));

/** LinkedIn profile URL as `https://www.linkedin.com/in/<slug>`; the slug is the key. */
export const normalizeLinkedinUrl = (input: string): Normalized => told('linkedin_url', input, identifiers.normalizeLinkedinUrl(input));

/** ORCID iD as `0000-0000-0000-000X` (checksum verified); its 16 characters are the key. */
export const normalizeOrcid = (input: string): Normalized => told('orcid', input, identifiers.normalizeOrcid(input));
