// Normalization of matching identifiers, and agreement with the database's generated key columns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import { normalizeEmail, normalizeLinkedinUrl, normalizeOrcid, orcidCheckCharacter } from './normalize.js';

describe('normalization', () => {
  it('trims and lower-cases emails, refusing non-addresses', () => {
    expect(normalizeEmail('  Ada.L@Example.ORG ')).toEqual({ ok: true, value: 'ada.l@example.org', key: 'ada.l@example.org' });
    expect(normalizeEmail('not an email').ok).toBe(false);
  });

  it.each([
    'https://www.linkedin.com/in/ada-l',
    'http://linkedin.com/in/Ada-L/',
    'www.linkedin.com/in/ada-l?trk=x',
    'https://uk.linkedin.com/in/ADA-L/#about',
    ' HTTPS://M.LINKEDIN.COM/in/ada-l/details/experience/ ',
  ])('canonicalizes the LinkedIn URL %s', (url) => {
    expect(normalizeLinkedinUrl(url)).toEqual({ ok: true, value: 'https://www.linkedin.com/in/ada-l', key: 'ada-l' });
  });

  it.each(['https://www.linkedin.com/company/acme', 'https://notlinkedin.org/in/ada', 'https://evil.com/linkedin.com/in/ada', 'ada-l'])(
    'refuses %s as a LinkedIn profile URL',
    (url) => expect(normalizeLinkedinUrl(url).ok).toBe(false),
  );

  it('computes ORCID check characters (ISO 7064 MOD 11-2), X included', () => {
    expect(orcidCheckCharacter('000000021825009')).toBe('7');
    expect(orcidCheckCharacter('000000021694233')).toBe('X');
  });

  it.each(['0000-0002-1825-0097', '0000000218250097', 'https://orcid.org/0000-0002-1825-0097', 'http://www.orcid.org/0000-0002-1825-0097', 'orcid.org/0000-0002-1825-0097'])(
    'accepts the ORCID iD form %s',
    (input) => expect(normalizeOrcid(input)).toEqual({ ok: true, value: '0000-0002-1825-0097', key: '0000000218250097' }),
  );

  it('accepts a lower-case x check character and refuses a wrong check character or shape', () => {
    expect(normalizeOrcid('0000-0002-1694-233x')).toMatchObject({ ok: true, value: '0000-0002-1694-233X' });
    expect(normalizeOrcid('0000-0002-1825-0098')).toMatchObject({ ok: false, reason: expect.stringContaining('checksum') });
    expect(normalizeOrcid('0000-0002-1825')).toMatchObject({ ok: false });
    expect(normalizeOrcid('https://example.org/0000-0002-1825-0097')).toMatchObject({ ok: false });
  });
});

describe('the database computes the same matching keys', () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase('pglite'));
  });
  afterAll(async () => close());

  it.each([
    [' Ada.L@Example.ORG ', 'http://uk.LinkedIn.com/in/Ada-L/?trk=1', 'https://orcid.org/0000-0002-1694-233x'],
    ['x@y.org', 'linkedin.com/in/someone', '0000000218250097'],
  ])('for %s, %s, %s', async (email, linkedin, orcid) => {
    const id = `p_${Math.random().toString(36).slice(2)}`;
    await db.query('INSERT INTO communities.profiles (id, name, email, linkedin_url, orcid) VALUES ($1, $2, $3, $4, $5)', [id, 'N', email, linkedin, orcid]);
    const [row] = await db.query<{ email_key: string; linkedin_key: string; orcid_key: string }>(
      'SELECT email_key, linkedin_key, orcid_key FROM communities.profiles WHERE id = $1',
      [id],
    );
    const key = (n: { ok: boolean; key?: string }) => (n.ok ? n.key : undefined);
    expect(row).toEqual({
      email_key: key(normalizeEmail(email)),
      linkedin_key: key(normalizeLinkedinUrl(linkedin)),
      orcid_key: key(normalizeOrcid(orcid)),
    });
  });
});
