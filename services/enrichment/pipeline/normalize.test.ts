// The normalize step's rules: whitespace, casing only of ALL-CAPS or all-lowercase text, ORCID iD
// forms and checksum, LinkedIn URL forms; and the name and organisation matching the providers use.
import { describe, expect, it } from 'vitest';
import {
  collapseWhitespace,
  nameKey,
  namesMatch,
  normalizeLinkedinUrl,
  normalizeOrcid,
  normalizePerson,
  orcidCheckCharacter,
  organizationsMatch,
  recase,
} from './normalize.js';

describe('casing', () => {
  it('re-cases names only when ALL-CAPS or all-lowercase, keeping particles lower-case', () => {
    expect(recase('MARIA LINDQVIST', 'name')).toBe('Maria Lindqvist');
    expect(recase('jan van der berg', 'name')).toBe('Jan van der Berg');
    expect(recase('LUDWIG VON MISES', 'name')).toBe('Ludwig von Mises');
    expect(recase('MARIA DE LA CRUZ', 'name')).toBe('Maria de la Cruz');
    expect(recase('seán o’brien', 'name')).toBe('Seán O’Brien');
    expect(recase("o'neil mcdonald", 'name')).toBe("O'Neil McDonald");
    expect(recase('JEAN-PIERRE DUPONT', 'name')).toBe('Jean-Pierre Dupont');
    // Mixed case is the person's own spelling.
    expect(recase('Ronald McDonald', 'name')).toBe('Ronald McDonald');
    expect(recase('Anna deVries', 'name')).toBe('Anna deVries');
    expect(recase('van der Berg', 'name')).toBe('van der Berg');
  });

  it('re-cases organisations and places, keeping acronyms, small words and region codes', () => {
    expect(recase('UNIVERSITY OF OXFORD', 'organization')).toBe('University of Oxford');
    expect(recase("great ormond street children's hospital", 'organization')).toBe("Great Ormond Street Children's Hospital");
    expect(recase('MIT', 'organization')).toBe('MIT');
    expect(recase('ETH Zürich', 'organization')).toBe('ETH Zürich');
    expect(recase('cambridge, ma', 'location')).toBe('Cambridge, MA');
    expect(recase('BOSTON, USA', 'location')).toBe('Boston, USA');
    expect(recase('rio de janeiro, brazil', 'location')).toBe('Rio de Janeiro, Brazil');
    expect(recase('La Jolla', 'location')).toBe('La Jolla');
  });

  it('collapses whitespace and turns blank text into null', () => {
    expect(collapseWhitespace('  Ada \n\t Lovelace  ')).toBe('Ada Lovelace');
    expect(collapseWhitespace('   ')).toBeNull();
    expect(collapseWhitespace(null)).toBeNull();
  });
});

describe('ORCID iD', () => {
  it('computes the ISO 7064 11,2 check character', () => {
    expect(orcidCheckCharacter('000000021825009')).toBe('7');
    expect(orcidCheckCharacter('000000021694233')).toBe('X');
  });

  it('accepts bare iDs (hyphens optional, x or X) and orcid.org URLs', () => {
    for (const form of [
      '0000-0002-1825-0097',
      '0000000218250097',
      'https://orcid.org/0000-0002-1825-0097',
      'http://orcid.org/0000-0002-1825-0097/',
      'https://www.orcid.org/0000-0002-1825-0097',
      'orcid.org/0000-0002-1825-0097',
    ]) {
      expect(normalizeOrcid(form), form).toEqual({ orcid: '0000-0002-1825-0097' });
    }
    expect(normalizeOrcid('0000-0002-1694-233x')).toEqual({ orcid: '0000-0002-1694-233X' });
  });

  it('refuses a wrong checksum or a non-iD, without repeating the value', () => {
    expect(normalizeOrcid('0000-0002-1825-0098')).toEqual({ problem: 'orcid fails the ORCID checksum (ISO 7064 MOD 11-2)' });
    expect(normalizeOrcid('https://example.org/0000-0002-1825-0097')).toEqual({ problem: 'orcid is not an ORCID iD (0000-0000-0000-000X)' });
    expect(normalizeOrcid('1234')).toMatchObject({ problem: expect.not.stringContaining('1234') });
  });
});

describe('LinkedIn URL', () => {
  it('normalises profile URLs to https://www.linkedin.com/in/<handle>', () => {
    for (const form of [
      'https://www.linkedin.com/in/Ada-Lovelace/',
      'http://linkedin.com/in/ada-lovelace?trk=public_profile',
      'linkedin.com/in/ada-lovelace#about',
      'https://uk.linkedin.com/in/ada-lovelace/details/experience/',
      'www.linkedin.com/in/ADA-LOVELACE',
    ]) {
      expect(normalizeLinkedinUrl(form), form).toBe('https://www.linkedin.com/in/ada-lovelace');
    }
  });

  it('is null for anything but a profile URL', () => {
    expect(normalizeLinkedinUrl('https://www.linkedin.com/company/acme')).toBeNull();
    expect(normalizeLinkedinUrl('https://notlinkedin.com/in/ada')).toBeNull();
    expect(normalizeLinkedinUrl('ada-lovelace')).toBeNull();
  });
});

describe('the person', () => {
  const base = { profileId: 'p1', name: '', headline: null, bio: null, organization: null, location: null, orcid: null, linkedinUrl: null };

  it('normalises every field and says what it dropped', () => {
    const { person, problems } = normalizePerson({
      ...base,
      name: '  MARIA   LINDQVIST ',
      headline: ' Structural   biologist ',
      organization: 'KAROLINSKA INSTITUTET',
      location: 'stockholm,  sweden',
      orcid: 'https://orcid.org/0000-0002-1825-0098',
      linkedinUrl: 'https://www.linkedin.com/company/acme',
    });
    expect(person).toMatchObject({
      name: 'Maria Lindqvist',
      headline: 'Structural biologist',
      organization: 'Karolinska Institutet',
      location: 'Stockholm, Sweden',
      orcid: null,
      linkedinUrl: null,
      orcidProblem: 'orcid fails the ORCID checksum (ISO 7064 MOD 11-2); dropped',
    });
    expect(problems).toEqual(['orcid fails the ORCID checksum (ISO 7064 MOD 11-2); dropped', 'linkedin_url is not a LinkedIn profile URL; dropped']);
  });

  it('keeps valid identifiers in their canonical form and reports nothing', () => {
    const { person, problems } = normalizePerson({ ...base, name: 'Ada', orcid: '000000021825 0097', linkedinUrl: 'linkedin.com/in/Ada/' });
    expect(person).toMatchObject({ orcid: null });
    expect(problems).toHaveLength(1);
    const valid = normalizePerson({ ...base, name: 'Ada', orcid: ' 0000-0002-1825-0097 ', linkedinUrl: 'linkedin.com/in/Ada/' });
    expect(valid.person).toMatchObject({ orcid: '0000-0002-1825-0097', linkedinUrl: 'https://www.linkedin.com/in/ada' });
    expect(valid.problems).toEqual([]);
  });
});

describe('matching', () => {
  it('matches names by words, family name and initials, ignoring accents and titles', () => {
    expect(nameKey('Dr. María Núñez, PhD')).toBe('maria nunez');
    expect(namesMatch('Maria Lindqvist', 'M. Lindqvist')).toBe(true);
    expect(namesMatch('Maria A. Lindqvist', 'Maria Lindqvist')).toBe(true);
    expect(namesMatch('Tomás Okafor', 'TOMAS OKAFOR')).toBe(true);
    expect(namesMatch('Priya Raman', 'Priya Ramanathan')).toBe(false);
    expect(namesMatch('Maria Lindqvist', 'Marta Lindqvist')).toBe(false);
    expect(namesMatch('Lindqvist', 'Maria Lindqvist')).toBe(false);
  });

  it('matches organisations by their distinctive words', () => {
    expect(organizationsMatch('ETH Zürich', 'ETH Zurich')).toBe(true);
    expect(organizationsMatch('Karolinska Institute', 'Karolinska Institutet')).toBe(true);
    expect(organizationsMatch('Oxford University', 'University of Oxford')).toBe(true);
    expect(organizationsMatch('Stanford', 'Stanford University')).toBe(true);
    expect(organizationsMatch('University of California, Berkeley', 'University of California, San Diego')).toBe(false);
    expect(organizationsMatch('University of Madras', 'ETH Zurich')).toBe(false);
  });
});
