// The identifiers people are known by — email, LinkedIn profile URL, ORCID iD — in their one
// canonical form, shared by the services that take them in (communities: bulk add and profile
// writes; enrichment: normalising a person). Each function returns the canonical value and the key
// to match on, or the problem; a problem never repeats the value (callers decide whether to quote it).

export type Normalized = { ok: true; value: string; key: string } | { ok: false; problem: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Email: trimmed and lower-cased; the whole address is the key. */
export function normalizeEmail(input: string): Normalized {
  const value = input.trim().toLowerCase();
  if (!EMAIL.test(value) || value.length > 320) return { ok: false, problem: 'is not an email address' };
  return { ok: true, value, key: value };
}

const LINKEDIN = /^(?:https?:\/\/)?(?:[a-z0-9-]+\.)*linkedin\.com\/in\/([^/?#\s]+)/;

/**
 * LinkedIn profile URL: any scheme-less, http or https form on linkedin.com or a subdomain
 * (www., uk., m.) becomes `https://www.linkedin.com/in/<slug>` with the slug lower-cased and no
 * trailing slash, query or fragment. The slug is the key. Anything but a /in/ profile URL is refused.
 */
export function normalizeLinkedinUrl(input: string): Normalized {
  const slug = LINKEDIN.exec(input.trim().toLowerCase())?.[1];
  if (!slug) return { ok: false, problem: 'is not a LinkedIn profile URL (https://www.linkedin.com/in/<name>)' };
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
 * (`https://orcid.org/…`). The value is the hyphenated bare form; the key its 16 characters. An iD
 * whose check character does not match its digits is refused.
 */
export function normalizeOrcid(input: string): Normalized {
  const body = input.trim().replace(ORCID_URL_PREFIX, '').replace(/\/+$/, '').toUpperCase();
  const parts = ORCID_BODY.exec(body);
  if (!parts) return { ok: false, problem: 'is not an ORCID iD (0000-0000-0000-000X)' };
  const key = parts.slice(1, 5).join('');
  if (orcidCheckCharacter(key.slice(0, 15)) !== key[15]) return { ok: false, problem: 'fails the ORCID checksum (ISO 7064 MOD 11-2)' };
  return { ok: true, value: parts.slice(1, 5).join('-'), key };
}
