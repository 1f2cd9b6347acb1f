// Normalization of the identifiers a bulk add matches people by (docs/COMMUNITIES.md). Each
// function returns the canonical value to store and the key to match on, or a reason the value is
// unusable. The keys mirror the generated columns of migrations/002_member_writes.sql (email_key,
// linkedin_key, orcid_key), so a profile written by any path matches the same way.

export type Normalized = { ok: true; value: string; key: string } | { ok: false; reason: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Email: trimmed and lower-cased; the whole address is the key. */
export function normalizeEmail(input: string): Normalized {
  const value = input.trim().toLowerCase();
  if (!EMAIL.test(value) || value.length > 320) return { ok: false, reason: `email ${JSON.stringify(input)} is not an email address` };
  return { ok: true, value, key: value };
}

// Same pattern as the linkedin_key column, applied to the trimmed, lower-cased input.
const LINKEDIN = /^(?:https?:\/\/)?(?:[a-z0-9-]+\.)*linkedin\.com\/in\/([^/?#]+)/;

/**
 * LinkedIn profile URL: any scheme-less, http or https form on linkedin.com or a subdomain
 * (www., uk., m.) becomes `https://www.linkedin.com/in/<slug>` with the slug lower-cased and no
 * trailing slash, query or fragment. The slug is the key. Anything but a /in/ profile URL is refused.
 */
export function normalizeLinkedinUrl(input: string): Normalized {
  const match = LINKEDIN.exec(input.trim().toLowerCase());
  const slug = match?.[1];
  if (!slug) return { ok: false, reason: `linkedin_url ${JSON.stringify(input)} is not a LinkedIn profile URL (https://www.linkedin.com/in/<name>)` };
  return { ok: true, value: `https://www.linkedin.com/in/${slug}`, key: slug };
}

const ORCID_URL_PREFIX = /^(?:https?:\/\/)?(?:www\.)?orcid\.org\//i;
const ORCID_BODY = /^(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])$/;

/** The ISO 7064 MOD 11-2 check character of the first 15 digits of an ORCID iD. */
export function orcidCheckCharacter(base15: string): string {
  let total = 0;
  for (const digit of base15) total = (total + Number(digit)) * 2;
  const result = (12 - (total % 11)) % 11;
  return result === 10 ? 'X' : String(result);
}

/**
 * ORCID iD: the bare form (`0000-0002-1825-0097`, hyphens optional, `x` or `X`) or the URL form
 * (`https://orcid.org/…`). Stored as the hyphenated bare form; the key is its 16 characters. An iD
 * whose check character does not match its digits is refused.
 */
export function normalizeOrcid(input: string): Normalized {
  const body = input.trim().replace(ORCID_URL_PREFIX, '').toUpperCase();
  const parts = ORCID_BODY.exec(body);
  if (!parts) return { ok: false, reason: `orcid ${JSON.stringify(input)} is not an ORCID iD (0000-0000-0000-000X)` };
  const key = parts.slice(1, 5).join('');
  if (orcidCheckCharacter(key.slice(0, 15)) !== key[15]) {
    return { ok: false, reason: `orcid ${JSON.stringify(input)} fails the ORCID checksum (ISO 7064 MOD 11-2)` };
  }
  return { ok: true, value: parts.slice(1, 5).join('-'), key };
}
