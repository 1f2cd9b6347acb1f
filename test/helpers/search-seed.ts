// The expert search suite's keys and seed: searchers with and without scopes or an allowlist, and
// communities whose public and private members each search may or may not reach.
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { liveKey } from './keys.js';

export const k = { writer: liveKey(), ana: liveKey(), ana2: liveKey(), allowNone: liveKey(), outsider: liveKey(), noScope: liveKey() };
export const rate = 6000;

export const seed: SeedInput = {
  users: ['u_ana', 'u_out', 'u_pub', 'u_priv', 'u_admin'].map((id) => ({ id, email: `${id}@example.org`, name: id, plan: 'paid' as const })),
  organizations: [{ id: 'o_lab', name: 'Lab' }, { id: 'o_other', name: 'Other' }],
  communities: [
    { id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true },
    { id: 'c_chem', name: 'Chemistry', owner: { organization: 'o_lab' } },
    { id: 'c_gone', name: 'Archived mid-search', owner: { organization: 'o_lab' } },
    { id: 'c_arch', name: 'Archived', owner: { organization: 'o_lab' }, archived: true },
    { id: 'c_other', name: 'Not Ana’s', owner: { organization: 'o_other' } },
  ],
  profiles: [
    { id: 'p_ana', user: 'u_ana', name: 'Ana Searcher', headline: 'Program officer' },
    { id: 'p_admin', user: 'u_admin', name: 'Adam Admin' },
    { id: 'p_eco', name: 'Elin Ecologist', headline: 'Freshwater pond ecologist', organization: 'Pond Institute', location: 'Oslo',
      avatar_url: 'https://img.example.org/elin.png' },
    { id: 'p_chemist', name: 'Carl Chemist', headline: 'Organic chemistry and catalysis' },
    { id: 'p_gone', name: 'Greta Glacier', headline: 'Glacier pond ecologist' },
    { id: 'p_arch', name: 'Archie Archived', headline: 'Pond ecologist in an archived community' },
    { id: 'p_secret', name: 'Sven Secret', headline: 'Pond ecologist outside reach' },
    { id: 'p_public', user: 'u_pub', public: true, name: 'Paula Public', headline: 'Marine and pond ecologist' },
    { id: 'p_private', user: 'u_priv', public: false, name: 'Priya Private', headline: 'Pond ecologist, private profile' },
    { id: 'p_unclaimed', public: true, name: 'Ulla Unclaimed', headline: 'Pond ecologist, unclaimed' },
  ],
  memberships: [
    { community: 'c_bio', profile: 'p_ana' },
    { community: 'c_bio', profile: 'p_admin', role: 'admin' },
    { community: 'c_chem', profile: 'p_ana' },
    { community: 'c_gone', profile: 'p_ana' },
    { community: 'c_arch', profile: 'p_ana' },
    { community: 'c_bio', profile: 'p_eco' },
    { community: 'c_chem', profile: 'p_eco' },
    { community: 'c_chem', profile: 'p_chemist' },
    { community: 'c_gone', profile: 'p_gone' },
    { community: 'c_arch', profile: 'p_arch' },
    { community: 'c_other', profile: 'p_secret' },
  ],
  wallets: [{ owner: { user: 'u_ana' }, balance: 1000 }],
  keys: [
    { id: 'k_writer', secret: k.writer, owner: { user: 'u_admin' }, scopes: ['member:write'], requested_rate: rate },
    { id: 'k_ana', secret: k.ana, owner: { user: 'u_ana' }, scopes: ['search:read', 'profile:read'], requested_rate: rate },
    { id: 'k_ana2', secret: k.ana2, owner: { user: 'u_ana' }, scopes: ['search:read'], requested_rate: rate },
    { id: 'k_allow_none', secret: k.allowNone, owner: { user: 'u_ana' }, scopes: ['search:read'], allowlist: ['c_other'], requested_rate: rate },
    { id: 'k_outsider', secret: k.outsider, owner: { user: 'u_out' }, scopes: ['search:read'], requested_rate: rate },
    { id: 'k_no_scope', secret: k.noScope, owner: { user: 'u_ana' }, scopes: ['profile:read'], requested_rate: rate },
  ],
};
