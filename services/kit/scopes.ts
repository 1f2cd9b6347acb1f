// The six scopes of the spec and the two of events and webhooks (docs/WEBHOOKS.md), their tiers,
// and the one-click Read preset. Shared by the edge (endpoint checks) and the identity service (minting).
export const SCOPES = [
  'search:read', 'profile:read', 'enrich:read', 'self:enrich', 'member:write', 'enrich:write', 'webhooks:read', 'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_TIER: Record<Scope, 'read' | 'self' | 'write' | 'webhooks'> = {
  'search:read': 'read',
  'profile:read': 'read',
  'enrich:read': 'read',
  'self:enrich': 'self',
  'member:write': 'write',
  'enrich:write': 'write',
  // Events and webhook endpoints: chosen explicitly, never part of the Read preset.
  'webhooks:read': 'webhooks',
  'webhooks:write': 'webhooks',
};

/** The Read preset: every read-tier scope. `self:enrich` is billable and must be chosen explicitly. */
export const READ_PRESET: readonly Scope[] = SCOPES.filter((s) => SCOPE_TIER[s] === 'read');

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
