// The caller's own resources: GET /v1/me (key identity, owner, scopes, usage, balance) and
// GET /v1/me/profile. Self-enrichment lives with the other enrichment endpoints (enrichment.ts).
import { z } from 'zod';
import { defineEndpoint, Id, MemberEnrichment, profileFields, Timestamp } from './schemas.js';

export const MeResponse = z
  .object({
    key: z
      .object({
        id: Id.describe('Key id (or OAuth grant id).'),
        prefix: z.string().describe('Display prefix of the key: the type prefix plus its first characters. Never the secret.'),
        environment: z.enum(['live', 'test']).describe('Label only: live and test keys reach the same data.'),
        kind: z
          .enum(['personal', 'organization'])
          .describe('`organization` for a legacy organization-owned key; new keys are always personal.'),
        credential: z.enum(['api_key', 'oauth']).describe('How the caller authenticated.'),
        rate_tier: z.enum(['restricted', 'standard']).describe('Rate tier fixed when the key was minted.'),
        created_at: Timestamp.describe('When the key was minted.'),
      })
      .describe('The credential that made this request.'),
    owner: z
      .object({
        type: z.enum(['user', 'organization']),
        id: Id,
        name: z.string(),
      })
      .describe("The key's billing owner."),
    scopes: z
      .array(z.string())
      .describe('Scopes granted to the key: any of `search:read`, `profile:read`, `enrich:read`, `self:enrich`, `member:write`, `enrich:write`.'),
    usage: z
      .object({
        requests_today: z.number().int().min(0).describe('Authenticated requests made with this key today (UTC).'),
        requests_this_month: z.number().int().min(0).describe('Authenticated requests made with this key this month (UTC).'),
        credits_spent_this_month: z.number().int().min(0).describe('Credits debited for calls made with this key since the start of the UTC month.'),
      })
      .describe('Usage counters of this key.'),
    credit_balance: z
      .number()
      .int()
      .describe("Live balance of the billing owner's wallet (0 without a wallet). May be negative while charges are metered after the fact."),
  })
  .describe('Identity, owner, scopes, usage and live credit balance of the calling key.');
export type MeResponse = z.output<typeof MeResponse>;

export const OwnProfile = z
  .object({
    ...profileFields,
    enrichment: MemberEnrichment.nullable().describe("The caller's self-enrichment data; null until a self-enrichment run has finished."),
  })
  .describe("The caller's own (claimed) profile.");
export type OwnProfile = z.output<typeof OwnProfile>;

export const getMeEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/me',
  operationId: 'getMe',
  tag: 'Identity',
  summary: 'Describe the calling key',
  description:
    'Returns the identity of the credential making the call, its billing owner, its scopes, its usage counters and the live credit balance of its billing owner. Any valid credential may call it.',
  scope: null,
  mcpTools: ['whoami'],
  success: { 200: { description: 'The calling key.', body: MeResponse } },
  errors: {},
});

export const getOwnProfileEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/me/profile',
  operationId: 'getOwnProfile',
  tag: 'Identity',
  summary: "Read the caller's own profile",
  description: 'Returns the profile claimed by the user behind the credential.',
  scope: 'profile:read',
  mcpTools: ['get_my_profile'],
  success: { 200: { description: "The caller's profile.", body: OwnProfile } },
  errors: {
    403: { description: 'The credential lacks the `profile:read` scope.' },
    404: { description: 'The user has no profile yet, or the key is a legacy organization-owned key with no user behind it.' },
  },
});
