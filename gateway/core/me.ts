// GET /v1/me (and the MCP whoami tool): the credential's identity, owner, scopes, usage and live
// balance, in the shape docs/API-DECISIONS.md fixes. An OAuth access token shows its grant as the key.
import { KeyEnvironment, OwnerType } from '../../proto/gen/expertnet/common/v1/common.js';
import { credentialKinds, keyEnvironments, ownerTypes, rateTiers } from '../../services/kit/enums.js';
import { fromRemote } from './api-error.js';
import type { MeResponse } from './contract/me.js';
import type { CallerContext, Edge } from './edge.js';

export type MeView = MeResponse;

export async function getMe(edge: Edge, ctx: CallerContext): Promise<MeView> {
  try {
    const options = await edge.as(ctx);
    const [described, billing] = await Promise.all([
      ctx.description ?? edge.clients.identity.describeCredential({}, options),
      edge.clients.billing.getCallerUsage({}, options),
    ]);
    const key = described.key!;
    const owner = described.owner!;
    const credential = credentialKinds.toName(ctx.caller.credential);
    return {
      key: {
        // For an OAuth access token: the grant's id, no prefix, live, personal.
        id: key.id,
        prefix: key.prefix,
        environment: keyEnvironments.toName(key.environment || KeyEnvironment.KEY_ENVIRONMENT_LIVE),
        kind: key.owner?.type === OwnerType.OWNER_TYPE_ORGANIZATION ? 'organization' : 'personal',
        credential,
        rate_tier: rateTiers.toName(key.rateTier),
        created_at: key.createdAt!,
      },
      owner: { type: ownerTypes.toName(owner.type), id: owner.id, name: owner.name },
      // What this request may do: a key's scopes, or the access token's (possibly narrower than its grant's).
      scopes: credential === 'oauth' ? ctx.caller.scopes : key.scopes,
      usage: {
        requests_today: described.usage?.requestsToday ?? 0,
        requests_this_month: described.usage?.requestsThisMonth ?? 0,
        credits_spent_this_month: billing.creditsSpentThisMonth,
      },
      credit_balance: billing.creditBalance,
    };
  } catch (error) {
    throw fromRemote(error);
  }
}
