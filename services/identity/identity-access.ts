// Who may call each identity RPC (services/kit/grpc/server.ts checks the principal's kind before
// the handler runs); handlers then narrow a `user` to their own keys, grants and account.
import type { IdentityServiceDefinition } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';

export const IDENTITY_ACCESS: ServiceRegistration<typeof IdentityServiceDefinition>['access'] = {
  // A service asks it for the credential of a direct caller it serves (services/kit/grpc/direct-callers.ts).
  authenticate: ['edge', 'service'],
  describeCredential: ['caller', 'direct'],
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
  listKeysByPrefix: ['operator'],
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
  // The edge reads it at start (deploy/launcher/runtime.ts): fingerprints and record ids only.
  getSeedState: ['operator', 'edge'],
  recordSeedRecords: ['operator'],
  createSignInLink: ['operator'],
  redeemSignInLink: ['edge'],
  signInWithProvider: ['edge'],
  resolveSession: ['edge'],
  endSession: ['edge'],
  getUsage: ['operator', 'user'],
  setJitConsent: ['operator', 'user'],
  listManagedOrganizations: ['operator', 'user'],
  recordRequests: ['edge', 'service'],
  listRequests: ['operator', 'user'],
  createServiceAccount: ['operator', 'user'],
  listServiceAccounts: ['operator', 'user'],
  revokeServiceAccount: ['operator', 'user'],
  issueServiceAccountToken: ['edge'],
};
