// The small world of the write suites: a manager who administers, through their organization, one
// community open to API writes with one member, and a key of theirs with the given scopes.
import type { SeedInput } from '../../deploy/admin/seed-schema.js';

export const WRITER_SCOPES = ['member:write', 'enrich:write', 'enrich:read', 'search:read', 'profile:read'];

/** The seed, its key `k_writer` holding `secret` (community `c_bio`, member `p_one`). */
export function writerSeed(secret: string, scopes: string[] = WRITER_SCOPES): SeedInput {
  return {
    users: [{ id: 'u_manager', email: 'manager@example.org', name: 'Manager', plan: 'paid' }],
    organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_manager', role: 'admin' }] }],
    communities: [{ id: 'c_bio', name: 'Biology', owner: { organization: 'o_lab' }, api_writes: true }],
    profiles: [{ id: 'p_one', name: 'One Member', headline: 'Pond ecology' }],
    memberships: [{ community: 'c_bio', profile: 'p_one', role: 'member' }],
    keys: [{ id: 'k_writer', secret, owner: { user: 'u_manager' }, scopes, requested_rate: 6000 }],
  };
}
