// A signed-in user's new key may be limited only to communities the user reaches: the settings
// page offers those, and this re-check refuses a forged form naming any other (nothing is minted).
// Reach is the communities service's to compute (ListUserReach), live.
import { asService } from '../kit/grpc/acting.js';
import { domainError, relayRemoteError } from '../kit/grpc/errors.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import type { IdentityContext } from './identity-context.js';

export async function requireAllowlistWithinReach(context: IdentityContext, ctx: ServiceContext, userId: string, allowlist: readonly string[]): Promise<void> {
  if (allowlist.length === 0) return;
  const { deps } = context;
  const options = asService('identity', ctx.requestId, deps.deadlineMs);
  const { communities } = await deps.clients.communities.listUserReach({ userId }, options).catch(relayRemoteError);
  const reached = new Set(communities.map((c) => c.id));
  const outside = allowlist.filter((id) => !reached.has(id));
  if (outside.length > 0) {
    throw domainError('forbidden', `the allowlist may name only communities you can read; outside your reach: ${outside.join(', ')}`);
  }
}
