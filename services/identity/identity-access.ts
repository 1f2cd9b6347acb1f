// Who may call each identity RPC (services/kit/grpc/server.ts checks the principal's kind before
// the handler runs); handlers then narrow a `user` to their own keys, grants and account.
import type { IdentityServiceDefinition } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';

export const IDENTITY_ACCESS: ServiceRegistration<typeof IdentityServiceDefinition>['access'] = {
  authenticate: ['edge'],
  describeCredential: ['caller'],
  mintKey: ['operator', 'user'],
  listKeys: ['operator', 'user'],
  revokeKey: ['operator', 'user'],
  rollKey: ['operator', 'user'],
  renameKey: ['operator', 'user'],
  listOrganizationKeys: ['operator', 'user'],
  importLegacyOrganizationKey: ['operator'],
  upsertUser: ['operator'],
  getUser: ['operator', 'service', 'user'],
  listUsers: ['operator'],
  setUserPlan: ['operator'],
  upsertOrganization: ['operator'],
  getOrganization: ['operator', 'service'],
  listUserOrganizations: ['operator', 'service'],
  createPlaceholderAccount: ['service'],
  deletePlaceholderAccount: ['service'],
  createGrant: ['operator', 'user'],
  issueAccessToken: ['operator'],
  revokeGrant: ['operator', 'user'],
  listGrants: ['operator', 'user'],
  getSeedState: ['operator'],
  recordSeedRecords: ['operator'],
  createSignInLink: ['operator'],
  redeemSignInLink: ['edge'],
  signInWithProvider: ['edge'],
  resolveSession: ['edge'],
  endSession: ['edge'],
  getUsage: ['operator', 'user'],
  setJitConsent: ['operator', 'user'],
  listManagedOrganizations: ['operator', 'user'],
};
