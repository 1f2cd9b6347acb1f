// Whose webhook endpoints a call manages (docs/WEBHOOKS.md): a person signed in to the settings web
// app (a `user` principal: no credential, acting on their own account) manages their own; a
// credential's caller, its owner's with the scope — the user behind a personal key or OAuth grant,
// or a legacy key's organization.
import { Caller, CredentialKind, OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { SCOPES } from '../kit/scopes.js';
import type { EndpointOwner } from './webhook-endpoints.repository.js';

export type WebhookScope = 'webhooks:read' | 'webhooks:write';

export function ownerOf(caller: Caller): EndpointOwner {
  if (caller.owner?.type === OwnerType.OWNER_TYPE_ORGANIZATION) return { type: 'organization', id: caller.owner.id };
  if (!caller.userId) throw domainError('forbidden', 'this credential has no owner to keep webhook endpoints for');
  return { type: 'user', id: caller.userId };
}

export function ownerOfCall(ctx: ServiceContext, scope: WebhookScope): EndpointOwner {
  if (ctx.principal.kind === 'user') return { type: 'user', id: ctx.principal.userId };
  return ownerOf(requireCaller(ctx, scope));
}

/**
 * Who is reading, as the event log's visibility sees them: the caller itself, or for a person
 * signed in to the settings app a personal key of theirs with every scope and no allowlist (their
 * widest reach); `wholeOwner` says the owner's own searches are theirs to see, whichever key ran them.
 */
export function readerOfCall(ctx: ServiceContext, scope: WebhookScope): { caller: Caller; wholeOwner: boolean } {
  if (ctx.principal.kind !== 'user') return { caller: requireCaller(ctx, scope), wholeOwner: false };
  return { caller: ownerAsCaller({ type: 'user', id: ctx.principal.userId }, [...SCOPES]), wholeOwner: true };
}

/**
 * The owner as a caller of their widest reach: a key of theirs with these scopes and no allowlist
 * (a user's own, an organization's), for the roster's reach rule (reach.ts).
 */
export function ownerAsCaller(owner: EndpointOwner, scopes: string[] = []): Caller {
  if (owner.type === 'organization') return Caller.fromPartial({ credential: CredentialKind.CREDENTIAL_KIND_API_KEY, owner: { type: OwnerType.OWNER_TYPE_ORGANIZATION, id: owner.id }, scopes });
  return Caller.fromPartial({ credential: CredentialKind.CREDENTIAL_KIND_API_KEY, owner: { type: OwnerType.OWNER_TYPE_USER, id: owner.id }, userId: owner.id, scopes });
}
