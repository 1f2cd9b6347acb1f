// The demo data set seeded on a server's first start, so a new user can try search, profiles and
// enrichment against something that looks like a real expert network. It is generated, not
// stored: a seeded PRNG makes every call return the same ~300 profiles (plus a few hand-written
// ones), so tests, screenshots and docs stay stable, while the word pools (demo-data/) keep the
// text varied enough for search to matter. This file builds the seed from them.
import { SCOPES } from '../../services/kit/scopes.js';
import type { SeedInput } from './seed-schema.js';
import { ALL_LOCATIONS, FIELDS, type Field } from './demo-data/fields.js';
import { claimProfiles, slug } from './demo-data/claims.js';
import { HAND_WRITTEN } from './demo-data/hand-written.js';
import { ACADEMIC_TITLES, EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES } from './demo-data/names.js';
import { chance, mulberry32, pick, pickOther, PROFILE_COUNT, SEED, type Rng } from './demo-data/random.js';
import type { Membership, Profile } from './demo-data/rows.js';
import { CLOSINGS, HEADLINES, MIDDLES, OPENINGS, type Ctx } from './demo-data/texts.js';

function pickField(rng: Rng): Field {
  let r = rng();
  for (const f of FIELDS) if ((r -= f.weight) < 0) return f;
  return FIELDS[FIELDS.length - 1]!;
}

// Joins spread over 2024-01-01 .. 2026-10-31 (UTC), whole minutes, computed from fixed bounds.
const JOIN_START = Date.UTC(2024, 0, 1);
const JOIN_END = Date.UTC(2026, 9, 31, 23, 59);

function joinedAt(rng: Rng): string {
  const minutes = Math.floor((rng() * (JOIN_END - JOIN_START)) / 60_000);
  return new Date(JOIN_START + minutes * 60_000).toISOString();
}


/** ISO 7064 MOD 11-2 check character, as ORCID defines it (10 is written 'X'). */
function orcidCheckDigit(base15: string): string {
  let total = 0;
  for (const ch of base15) total = (total + Number(ch)) * 2;
  const result = (12 - (total % 11)) % 11;
  return result === 10 ? 'X' : String(result);
}

// Real iDs are issued from the 0000-0001.. 0000-0003 blocks, so the demo ones look alike.
function orcid(rng: Rng): string {
  let base = `0000000${pick(rng, ['1', '2', '3'])}`;
  while (base.length < 15) base += String(Math.floor(rng() * 10));
  const full = base + orcidCheckDigit(base);
  return `${full.slice(0, 4)}-${full.slice(4, 8)}-${full.slice(8, 12)}-${full.slice(12)}`;
}


/** Upper-cases the first letter: headlines may start with a lower-case topic. */
function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function makeProfile(rng: Rng, index: number, field: Field): Profile {
  const first = pick(rng, FIRST_NAMES);
  const last = pick(rng, LAST_NAMES);
  const id = `p_${String(index).padStart(4, '0')}`;
  const [org, orgLocation] = pick(rng, field.orgs);
  const topic = pick(rng, field.topics);
  const method = pick(rng, field.methods);
  const title = chance(rng, 0.5) ? pick(rng, field.roles) : pick(rng, ACADEMIC_TITLES);
  const ctx: Ctx = {
    first, title, org, topic, method, application: pick(rng, field.applications),
    topic2: pickOther(rng, field.topics, topic), method2: pickOther(rng, field.methods, method),
  };
  const sentences = [pick(rng, OPENINGS)(ctx), pick(rng, MIDDLES)(ctx)];
  if (chance(rng, 0.6)) sentences.push(pick(rng, CLOSINGS)(ctx));

  const headline = capitalise(pick(rng, HEADLINES)(ctx));
  const profile: Profile = { id, public: chance(rng, 0.6), name: `${first} ${last}`, headline };
  // A few profiles are sparse on purpose: real rosters always have gaps.
  if (chance(rng, 0.93)) profile.bio = sentences.join(' ');
  if (chance(rng, 0.95)) profile.organization = ctx.org;
  // Most people live where their organization is; some work remotely from elsewhere.
  if (chance(rng, 0.92)) profile.location = chance(rng, 0.8) ? orgLocation : pick(rng, ALL_LOCATIONS);
  // Every address carries the index, so emails are unique however the names repeat.
  const f = slug(first);
  const l = slug(last);
  if (chance(rng, 0.7)) {
    const local = pick(rng, [`${f}.${l}.${index}`, `${f[0]}${l}${index}`, `${f}_${l}_${index}`]);
    profile.email = `${local}@${pick(rng, EMAIL_DOMAINS)}`;
  }
  if (chance(rng, 0.4)) {
    const suffix = `${index.toString(36)}${Math.floor(rng() * 1296).toString(36)}`;
    profile.linkedin_url = `https://www.linkedin.com/in/${f}-${l}-${suffix}`;
  }
  if (chance(rng, 0.45)) profile.orcid = orcid(rng);
  if (chance(rng, 0.5)) profile.avatar_url = `https://avatars.example.org/${id}.png`;
  return profile;
}


export function demoSeed(): SeedInput {
  const rng = mulberry32(SEED);
  const profiles: Profile[] = [];
  const memberships: Membership[] = [];
  const seenOrcids = new Set<string>();
  const communityIds = FIELDS.map((f) => f.community.id);

  // The demo user's own profile: public, admin of two communities, member of a third.
  profiles.push({
    id: 'p_demo',
    user: 'u_demo',
    public: true,
    name: 'Demo User',
    headline: 'Research Engineer · machine learning for climate and structural biology',
    bio: 'Demo account of the Expert Network API. Admin of the machine learning and climate communities, member of the public health forum.',
    organization: 'Northwind Research Lab',
    location: 'Copenhagen, Denmark',
    email: 'demo@example.org',
    avatar_url: 'https://avatars.example.org/p_demo.png',
  });
  memberships.push(
    { community: 'c_machine_learning', profile: 'p_demo', role: 'admin', joined_at: '2024-01-02T09:00:00.000Z' },
    { community: 'c_climate_science', profile: 'p_demo', role: 'admin', joined_at: '2024-01-02T09:05:00.000Z' },
    { community: 'c_public_health', profile: 'p_demo', role: 'member', joined_at: '2024-03-14T15:30:00.000Z' },
  );

  for (let i = 1; i <= PROFILE_COUNT; i++) {
    const field = pickField(rng);
    const profile = makeProfile(rng, i, field);
    // Collisions are astronomically rare, but the iD must stay unique, so just drop a repeat.
    if (profile.orcid) {
      if (seenOrcids.has(profile.orcid)) delete profile.orcid;
      else seenOrcids.add(profile.orcid);
    }
    profiles.push(profile);

    // Home community from the field; about a third also sit in a second one.
    const role = () => (chance(rng, 0.04) ? 'admin' : 'member');
    memberships.push({ community: field.community.id, profile: profile.id, role: role(), joined_at: joinedAt(rng) });
    if (chance(rng, 0.3)) {
      const other = pickOther(rng, communityIds, field.community.id);
      memberships.push({ community: other, profile: profile.id, role: role(), joined_at: joinedAt(rng) });
    }
  }

  for (const person of HAND_WRITTEN) {
    profiles.push({ ...person.profile });
    for (const community of person.communities) {
      memberships.push({ community, profile: person.profile.id, role: 'member', joined_at: person.joined_at });
    }
  }

  const users: NonNullable<SeedInput['users']> = [
    { id: 'u_demo', email: 'demo@example.org', name: 'Demo User', plan: 'paid' },
    ...claimProfiles(profiles),
  ];

  return {
    users,
    organizations: [
      {
        id: 'o_demo_lab',
        name: 'Northwind Research Lab',
        members: [
          { user: 'u_demo', role: 'owner', joined_at: '2024-01-01T08:00:00.000Z' },
          { user: 'u_trial', role: 'member', joined_at: '2025-06-02T10:15:00.000Z' },
        ],
      },
    ],
    communities: FIELDS.map((f) => ({ ...f.community })),
    profiles,
    memberships,
    wallets: [
      { owner: { user: 'u_demo' }, balance: 1000 },
      { owner: { organization: 'o_demo_lab' }, balance: 5000 },
    ],
    // No secret: the server mints one on first start and prints it once.
    keys: [{ id: 'key_demo', owner: { user: 'u_demo' }, scopes: [...SCOPES], environment: 'test' }],
  };
}
