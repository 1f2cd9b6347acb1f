// The identity service's service-account RPCs (service_accounts.proto), bound to the service's
// context; identity.service.ts spreads them into its implementation. Who may call each is
// identity-access.ts's; what a signed-in owner may touch is service-accounts.ts's.
import type { IdentityServiceDefinition } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { IdentityContext } from './identity-context.js';
import { issueServiceAccountToken } from './service-account-tokens.js';
import { createServiceAccount, listServiceAccounts, revokeServiceAccount } from './service-accounts.js';

type Implementation = ServiceRegistration<typeof IdentityServiceDefinition>['implementation'];
type Handlers = Pick<Implementation, 'createServiceAccount' | 'listServiceAccounts' | 'revokeServiceAccount' | 'issueServiceAccountToken'>;

export function serviceAccountHandlers(context: IdentityContext): Handlers {
  return {
    createServiceAccount: (request, ctx) => createServiceAccount(context, request, ctx),
    listServiceAccounts: (request, ctx) => listServiceAccounts(context, request, ctx),
    revokeServiceAccount: (request, ctx) => revokeServiceAccount(context, request.serviceAccountId, ctx),
    issueServiceAccountToken: (request) => issueServiceAccountToken(context, request),
  };
}
