import { describe, expect, it } from 'vitest';
import { demoSeed } from './demo-data.js';
import { parseSeed } from './seed-schema.js';

// Written independently of the generator: ISO 7064 MOD 11-2 over the first 15 digits.
function orcidIsValid(orcid: string): boolean {
  if (!/^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/.test(orcid)) return false;
  const chars = orcid.replace(/-/g, '');
  let sum = 0;
  for (let i = 0; i < 15; i++) sum = ((sum + Number(chars[i])) * 2) % 11;
  const check = (12 - sum) % 11;
  return chars[15] === (check === 10 ? 'X' : String(check));
}

const ALL_SCOPES = ['search:read', 'profile:read', 'enrich:read', 'self:enrich', 'member:write', 'enrich:write', 'webhooks:read', 'webhooks:write'];

describe('demoSeed', () => {
  const seed = demoSeed();
  const profiles = seed.profiles ?? [];
  const communities = seed.communities ?? [];
  const memberships = seed.memberships ?? [];

  it('passes the seed schema', () => {
    expect(() => parseSeed(demoSeed())).not.toThrow();
  });

  it('is deterministic', () => {
    expect(demoSeed()).toEqual(demoSeed());
    expect(JSON.stringify(demoSeed())).toBe(JSON.stringify(seed));
  });

  it('has enough profiles and communities', () => {
    expect(profiles.length).toBeGreaterThanOrEqual(250);
    expect(communities.length).toBeGreaterThanOrEqual(4);
  });

  it('has unique profile ids, emails and ORCID iDs', () => {
    const ids = profiles.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const emails = profiles.flatMap((p) => (p.email ? [p.email.toLowerCase()] : []));
    expect(emails.length).toBeGreaterThan(150);
    expect(new Set(emails).size).toBe(emails.length);
    const orcids = profiles.flatMap((p) => (p.orcid ? [p.orcid] : []));
    expect(orcids.length).toBeGreaterThan(50);
    expect(new Set(orcids).size).toBe(orcids.length);
  });

  it('gives every ORCID iD a valid check digit', () => {
    const orcids = profiles.flatMap((p) => (p.orcid ? [p.orcid] : []));
    expect(orcidIsValid('0000-0002-1825-0097')).toBe(true); // ORCID's documented example
    expect(orcidIsValid('0000-0002-1694-233X')).toBe(true);
    expect(orcidIsValid('0000-0002-1825-0098')).toBe(false);
    for (const orcid of orcids) expect(orcidIsValid(orcid), orcid).toBe(true);
    expect(orcids.some((o) => o.endsWith('X'))).toBe(true);
  });

  it('only references existing communities and profiles in memberships', () => {
    const communityIds = new Set(communities.map((c) => c.id));
    const profileIds = new Set(profiles.map((p) => p.id));
    for (const m of memberships) {
      expect(communityIds.has(m.community), m.community).toBe(true);
      expect(profileIds.has(m.profile), m.profile).toBe(true);
    }
    const pairs = memberships.map((m) => `${m.community}/${m.profile}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    for (const p of profiles) expect(memberships.some((m) => m.profile === p.id), p.id).toBe(true);
  });

  it('gives the demo user its profile and roles', () => {
    const demo = profiles.find((p) => p.id === 'p_demo');
    expect(demo).toMatchObject({ user: 'u_demo', public: true });
    const roles = memberships.filter((m) => m.profile === 'p_demo').map((m) => m.role);
    expect(roles.filter((r) => r === 'admin')).toHaveLength(2);
    expect(roles.filter((r) => r === 'member')).toHaveLength(1);
    const claimed = profiles.flatMap((p) => (p.user ? [p.user] : []));
    expect(new Set(claimed).size).toBe(claimed.length);
    const userIds = new Set((seed.users ?? []).map((u) => u.id));
    for (const u of claimed) expect(userIds.has(u), u).toBe(true);
  });

  it('has dozens of public claimed profiles, in every community, each claimed by its own user', () => {
    const claimed = profiles.filter((p) => p.public && p.user);
    expect(claimed.length).toBeGreaterThanOrEqual(36);
    const users = new Map((seed.users ?? []).map((u) => [u.id, u]));
    expect(new Set(claimed.map((p) => p.user)).size).toBe(claimed.length);
    for (const p of claimed) expect(users.get(p.user!)?.email, p.id).toBe(p.email);
    const emails = (seed.users ?? []).map((u) => u.email?.toLowerCase());
    expect(new Set(emails).size).toBe(emails.length);
    const claimedIds = new Set(claimed.map((p) => p.id));
    for (const c of communities) {
      const inCommunity = memberships.filter((m) => m.community === c.id && claimedIds.has(m.profile));
      expect(inCommunity.length, c.id).toBeGreaterThanOrEqual(5);
    }
    expect(new Set((seed.users ?? []).map((u) => u.plan))).toEqual(new Set(['free', 'trial', 'paid']));
  });

  it('has one test key with every scope and no secret', () => {
    expect(seed.keys).toHaveLength(1);
    const key = seed.keys?.[0];
    expect(key?.id).toBe('key_demo');
    expect(key?.owner).toEqual({ user: 'u_demo' });
    expect(key?.environment).toBe('test');
    expect([...(key?.scopes ?? [])].sort()).toEqual([...ALL_SCOPES].sort());
    expect(key).not.toHaveProperty('secret');
  });

  it('has varied headlines', () => {
    const headlines = new Set(profiles.map((p) => p.headline));
    expect(headlines.size).toBeGreaterThanOrEqual(100);
  });
});
