// Users and organizations as the operator keeps them: upsert a user, change a plan, upsert an
// organization with its members (in one transaction), and read them back.
import type { Organization as OrganizationMessage, User as UserMessage } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { isUniqueViolation } from '../kit/db/database.js';
import { plans, roles } from '../kit/enums.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireId } from '../kit/ids.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { IdentityContext } from './identity-context.js';
import { publishKeyStamps } from './stamp-publishing.js';
import { createUserRepository, type OrganizationMemberRow, type OrganizationRow, type UserRow } from './user.repository.js';

export async function upsertUser(context: IdentityContext, u: UserMessage | undefined): Promise<UserRow> {
  if (!u) throw domainError('invalid_request', 'user is required');
  if (!u.name.trim()) throw domainError('invalid_request', 'user.name is required');
  try {
    return await context.users.upsertUser({
      id: requireId(u.id, 'user.id'),
      email: u.email || null,
      name: u.name,
      plan: u.plan ? plans.toName(u.plan, 'user.plan') : 'free',
      jit_consent: u.jitConsent,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw domainError('invalid_request', `email ${u.email} belongs to another user`);
    throw error;
  }
}

export async function getUser(context: IdentityContext, userId: string): Promise<UserRow> {
  const row = await context.users.findUser(userId);
  if (!row) throw domainError('not_found', `user ${userId} not found`);
  return row;
}

/** The user's just-in-time write consent alone: the rest of the record stays as it is. */
export async function setJitConsent(context: IdentityContext, userId: string, enabled: boolean): Promise<UserRow> {
  const row = await context.users.setJitConsent(userId, enabled);
  if (!row) throw domainError('not_found', `user ${userId} not found`);
  return row;
}

/** One page of every user, or of those whose name or email contains the query, in id order (the operator's list). */
export async function listUsers(context: IdentityContext, request: { pageSize: number; pageToken: string; query: string }) {
  const limit = clampPageSize(request.pageSize);
  return pageOf(await context.users.listUsers(limit + 1, request.pageToken, request.query.trim()), limit, (u) => u.id);
}

export async function setUserPlan(context: IdentityContext, userId: string, plan: UserMessage['plan']): Promise<UserRow> {
  const row = await context.users.setPlan(userId, plans.toName(plan, 'plan'));
  if (!row) throw domainError('not_found', `user ${userId} not found`);
  return row;
}

/** Upserts the organization and its members; every member must be a known user. Returns its id. */
export async function upsertOrganization(context: IdentityContext, o: OrganizationMessage | undefined): Promise<string> {
  if (!o || !o.name.trim()) throw domainError('invalid_request', 'organization.name is required');
  const id = requireId(o.id, 'organization.id');
  for (const m of o.members) {
    if (!(await context.users.findUser(m.userId))) throw domainError('invalid_request', `unknown user ${m.userId}`);
    roles.toName(m.role, 'members.role');
  }
  await context.deps.db.transaction(async (tx) => {
    const repo = createUserRepository(tx);
    await repo.upsertOrganization({ id, name: o.name, jit_consent: o.jitConsent });
    for (const m of o.members) {
      await repo.upsertOrganizationMember({
        organization_id: id,
        user_id: m.userId,
        role: roles.toName(m.role, 'members.role'),
        joined_at: m.joinedAt ? new Date(m.joinedAt) : new Date(),
      });
    }
  });
  // A member's role decides what its keys reach (Caller.managed_organizations).
  await publishKeyStamps(context, [], o.members.map((m) => m.userId));
  return id;
}

/** An organization and its members. */
export async function getOrganization(
  context: IdentityContext,
  id: string,
): Promise<{ org: OrganizationRow; members: OrganizationMemberRow[] }> {
  const org = await context.users.findOrganization(id);
  if (!org) throw domainError('not_found', `organization ${id} not found`);
  return { org, members: await context.users.organizationMembers(id) };
}

/** The organizations a user belongs to, with the user's role in each. */
export async function organizationsOfUser(context: IdentityContext, userId: string): Promise<OrganizationMemberRow[]> {
  return context.users.organizationsOfUser(userId);
}
