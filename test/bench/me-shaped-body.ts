// The body the baseline servers answer: the shape of GET /v1/me, so serialising it costs what the
// edge's answer costs.
export const meShapedBody = {
  key: { id: 'key_bench', prefix: 'svc_live_AAAAAA', environment: 'live', kind: 'personal', credential: 'api_key', rate_tier: 'standard', created_at: '2026-01-01T00:00:00.000Z' },
  owner: { type: 'user', id: 'u_bench', name: 'Bench User' },
  scopes: ['search:read', 'profile:read'],
  usage: { requests_today: 1, requests_this_month: 1, credits_spent_this_month: 0 },
  credit_balance: 1000,
};
