// Principals the kit's gRPC tests sign, send and expect back: an operator, a service, and a caller
// (Ada) with scopes, an allowlist and a rate tier, so a round trip has every field to lose.
import {
  Caller,
  CredentialKind,
  KeyEnvironment,
  OwnerType,
  RateTier,
} from '../../proto/gen/expertnet/common/v1/common.js';
import type { Principal } from '../../services/kit/grpc/principal.js';

export const operator: Principal = { kind: 'operator', actor: 'test' };
export const service: Principal = { kind: 'service', service: 'search' };
export const ada = Caller.fromPartial({
  credentialId: 'k_ada',
  credential: CredentialKind.CREDENTIAL_KIND_API_KEY,
  owner: { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' },
  userId: 'u_ada',
  scopes: ['search:read', 'profile:read'],
  allowlist: { communityIds: ['c_bio'] },
  rateTier: RateTier.RATE_TIER_STANDARD,
  requestedRate: 5,
  environment: KeyEnvironment.KEY_ENVIRONMENT_TEST,
});
export const callerAda: Principal = { kind: 'caller', caller: ada };
export const adaWallet = { type: OwnerType.OWNER_TYPE_USER, id: 'u_ada' };
