// Requests as searchers type them, judged against the demo data set (deploy/admin/demo-data.ts):
// a searcher's own words for a field, paraphrases, a place, a role. Each request names who a person
// reading the profiles would expect: hand-written demo people by id, and generated ones by what
// their profile says (a judgement over the text, written without looking at any ranking).
import { demoSeed } from '../../deploy/admin/demo-data.js';
import type { Database } from '../../services/kit/db/database.js';

type SeedProfile = NonNullable<ReturnType<typeof demoSeed>['profiles']>[number];

export interface DemoDocument {
  community_id: string;
  profile_id: string;
  name: string;
  headline: string | null;
  bio: string | null;
  organization: string | null;
  location: string | null;
}

/** One search.documents row per membership, as the communities service indexes the demo seed. */
export function demoDocuments(): DemoDocument[] {
  const seed = demoSeed();
  const byId = new Map((seed.profiles ?? []).map((p) => [p.id, p]));
  return (seed.memberships ?? []).map((m) => {
    const p = byId.get(m.profile)!;
    return {
      community_id: m.community,
      profile_id: p.id,
      name: p.name,
      headline: p.headline ?? null,
      bio: p.bio ?? null,
      organization: p.organization ?? null,
      location: p.location ?? null,
    };
  });
}

/** The demo seed's communities. */
export const DEMO_COMMUNITIES = ['c_structural_biology', 'c_machine_learning', 'c_climate_science', 'c_public_health', 'c_materials_science'];

/** Writes the demo documents into search.documents (a hundred a statement); returns how many. */
export async function indexDemo(db: Database): Promise<number> {
  const docs = demoDocuments();
  for (let i = 0; i < docs.length; i += 100) {
    const batch = docs.slice(i, i + 100);
    const values: unknown[] = [];
    const rows = batch.map((d, j) => {
      values.push(d.community_id, d.profile_id, d.name, d.headline, d.bio, d.organization, d.location);
      const o = j * 7;
      return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7})`;
    });
    await db.query(`INSERT INTO search.documents (community_id, profile_id, name, headline, bio, organization, location) VALUES ${rows.join(', ')}`, values);
  }
  return docs.length;
}

export interface JudgedRequest {
  query: string;
  /** Where the first expected person must appear at the latest. */
  within: number;
  /** The people a searcher would expect, by id or by what their profile says. */
  expected: (p: SeedProfile) => boolean;
}

const text = (p: SeedProfile) => `${p.headline ?? ''} ${p.bio ?? ''}`.toLowerCase();
const ids = (...wanted: string[]) => (p: SeedProfile) => wanted.includes(p.id);

export const REQUESTS: JudgedRequest[] = [
  { query: 'someone who can review a CRISPR gene editing grant', within: 3, expected: ids('p_0305', 'p_0306') },
  { query: 'epidemiologist in Nairobi', within: 3, expected: ids('p_0301', 'p_0302') },
  { query: 'graph neural networks for molecules', within: 3, expected: ids('p_0308') },
  { query: 'brain scientist', within: 3, expected: ids('p_0310') },
  { query: 'heart doctor', within: 3, expected: ids('p_0311') },
  { query: 'someone who knows about machine learning for drug discovery', within: 5, expected: ids('p_0309', 'p_0308') },
  { query: 'a statistician who has worked on clinical trials', within: 3, expected: ids('p_0312') },
  {
    query: 'expert in Kenyan public health',
    within: 5,
    expected: (p) => ['p_0301', 'p_0302', 'p_0314'].includes(p.id) || (Boolean(p.location?.includes('Kenya')) && /health|epidemiolog/.test(text(p))),
  },
  { query: 'gene editing in crops', within: 3, expected: ids('p_0306') },
  { query: 'cryo-EM structural biologist', within: 3, expected: (p) => /cryo-e/.test(text(p)) },
  { query: 'sea ice researcher', within: 3, expected: (p) => text(p).includes('sea ice') },
  { query: 'battery materials expert', within: 3, expected: (p) => /batter/.test(text(p)) },
  { query: 'solar cell researcher', within: 3, expected: (p) => /solar cell|photovoltaic/.test(text(p)) },
  { query: 'ocean scientist', within: 3, expected: (p) => /oceanograph|ocean heat/.test(text(p)) },
  { query: 'evaluating large language models', within: 3, expected: (p) => /llm evaluation|large language model/.test(text(p)) },
  { query: 'tuberculosis expert in Kenya', within: 3, expected: (p) => text(p).includes('tuberculosis') && Boolean(p.location?.includes('Kenya')) },
  { query: 'malaria researcher', within: 3, expected: (p) => text(p).includes('malaria') },
  { query: 'health economist', within: 3, expected: (p) => /health economist|cost-effectiveness/.test(text(p)) },
  { query: 'AI for medical imaging', within: 5, expected: (p) => text(p).includes('medical imaging') },
  { query: 'climate scientist in Nairobi', within: 3, expected: ids('p_0303') },
];

/** The demo profiles by id (for judging). */
export function demoProfiles(): Map<string, SeedProfile> {
  return new Map((demoSeed().profiles ?? []).map((p) => [p.id, p]));
}
