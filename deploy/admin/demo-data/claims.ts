// Who has claimed a demo profile. A claimed public profile is what scope `public` searches (and
// scope `all` adds to the readable communities), so the demo needs dozens of them for a public
// search to find people. Fixed rules, no draw from the PRNG: the generated profiles stay the same
// with or without claims, and every call claims the same people.
import type { SeedInput } from '../seed-schema.js';
import type { Profile } from './rows.js';

type User = NonNullable<SeedInput['users']>[number];

/** ASCII slug of a name: diacritics dropped (dotless ı has no decomposition), the rest removed. */
export function slug(text: string): string {
  return text.normalize('NFD').toLowerCase().replace(/ı/g, 'i').replace(/[^a-z0-9]/g, '');
}

// The two named accounts of the demo, one per plan below paid; their profiles become public.
const NAMED_CLAIMS = [
  { id: 'p_0012', user: 'u_free', plan: 'free' },
  { id: 'p_0057', user: 'u_trial', plan: 'trial' },
] as const;

/** Every fifth public generated profile, and every hand-written one, is claimed by its own user. */
const CLAIM_STRIDE = 5;
const FIRST_HAND_WRITTEN = 301;

// Plans of the other claimants, in turn: mostly free, as on a real network.
const PLANS: User['plan'][] = ['free', 'free', 'trial', 'free', 'paid'];

function claim(profile: Profile, user: string, plan: User['plan'], email: string): User {
  Object.assign(profile, { user, public: true, email });
  return { id: user, email, name: profile.name, plan };
}

/**
 * Claims the demo profiles (p_demo is claimed by the demo user already) and returns their users.
 * A claimed profile carries its owner's address, like a real claimed profile.
 */
export function claimProfiles(profiles: Profile[]): User[] {
  const users: User[] = [];
  const byId = new Map(profiles.map((p) => [p.id, p]));
  for (const named of NAMED_CLAIMS) {
    const profile = byId.get(named.id)!;
    users.push(claim(profile, named.user, named.plan, `${slug(profile.name.split(' ')[0]!)}.${named.user.slice(2)}@example.org`));
  }
  let publicSeen = 0;
  for (const profile of profiles) {
    const index = Number(profile.id.slice(2));
    if (profile.user || !profile.public || !Number.isInteger(index)) continue;
    const handWritten = index >= FIRST_HAND_WRITTEN;
    if (!handWritten && publicSeen++ % CLAIM_STRIDE !== 0) continue;
    const [first = '', ...rest] = profile.name.split(' ');
    const email = profile.email ?? `${slug(first)}.${slug(rest.join(''))}.${index}@example.org`;
    users.push(claim(profile, `u_${profile.id.slice(2)}`, PLANS[users.length % PLANS.length]!, email));
  }
  return users;
}
