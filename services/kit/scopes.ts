// The six scopes of the spec, their tiers, and the one-click Read preset. Shared by the edge
// (endpoint checks) and the identity service (minting).
export const SCOPES = ['search:read', 'profile:read', 'enrich:read', 'self:enrich', 'member:write', 'enrich:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_TIER: Record<Scope, 'read' | 'self' | 'write'> = {
  'search:read': 'read',
  'profile:read': 'read',
  'enrich:read': 'read',
  'self:enrich': 'self',
  'member:write': 'write',
  'enrich:write': 'write',
};

/** The Read preset: every read-tier scope. `self:enrich` is billable and must be chosen explicitly. */
export const READ_PRESET: readonly Scope[] = SCOPES.filter((s) => SCOPE_TIER[s] === 'read');

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
