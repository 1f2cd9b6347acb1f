// The seed file format of the operator contract, validated with zod so a bad file is refused
// with every problem listed (path and reason) before anything is written.
import { z } from 'zod';

const id = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'ids are 1-128 of [A-Za-z0-9_.:-]');
const role = z.enum(['member', 'admin', 'owner']);
const owner = z.union([
  z.object({ user: id }).strict(),
  z.object({ organization: id }).strict(),
]);
const timestamp = z.string().datetime({ offset: true });
const optionalText = z.string().max(10_000).nullish();

export const seedSchema = z
  .object({
    users: z.array(z.object({
      id,
      email: z.string().email().nullish(),
      name: z.string().min(1).max(300),
      plan: z.enum(['free', 'trial', 'paid']).default('free'),
      jit_consent: z.boolean().default(false),
    }).strict()).default([]),
    organizations: z.array(z.object({
      id,
      name: z.string().min(1).max(300),
      jit_consent: z.boolean().default(false),
      members: z.array(z.object({ user: id, role, joined_at: timestamp.optional() }).strict()).default([]),
    }).strict()).default([]),
    communities: z.array(z.object({
      id,
      name: z.string().min(1).max(300),
      owner,
      archived: z.boolean().default(false),
      api_writes: z.boolean().default(false),
    }).strict()).default([]),
    profiles: z.array(z.object({
      id,
      user: id.nullish(),
      public: z.boolean().default(false),
      name: z.string().min(1).max(300),
      headline: optionalText,
      bio: optionalText,
      organization: optionalText,
      location: optionalText,
      email: z.string().email().nullish(),
      linkedin_url: z.string().url().nullish(),
      orcid: z.string().regex(/^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/, 'ORCID iD as 0000-0000-0000-0000').nullish(),
      avatar_url: z.string().url().nullish(),
    }).strict()).default([]),
    memberships: z.array(z.object({
      community: id,
      profile: id,
      role: role.default('member'),
      joined_at: timestamp.optional(),
    }).strict()).default([]),
    wallets: z.array(z.object({ owner, balance: z.number().int() }).strict()).default([]),
    keys: z.array(z.object({
      id,
      secret: z.string().optional(),
      owner,
      scopes: z.array(z.string()).min(1),
      allowlist: z.array(id).nullish(),
      requested_rate: z.number().int().positive().optional(),
      environment: z.enum(['live', 'test']).optional(),
    }).strict()).default([]),
  })
  .strict();

export type SeedInput = z.input<typeof seedSchema>;
export type SeedDocument = z.output<typeof seedSchema>;

export class SeedError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid seed file:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SeedError';
  }
}

export function parseSeed(input: unknown): SeedDocument {
  const parsed = seedSchema.safeParse(input);
  if (!parsed.success) {
    throw new SeedError(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return parsed.data;
}
