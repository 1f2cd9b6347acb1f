// Lower-case names used in SQL, seed files and JSON, mapped to and from the proto enums.
import {
  CredentialKind,
  KeyEnvironment,
  OwnerType,
  Plan,
  RateTier,
  Role,
} from '../../proto/gen/expertnet/common/v1/common.js';
import { domainError } from './grpc/errors.js';

function mapping<N extends string, E extends number>(pairs: Record<N, E>) {
  const names = Object.keys(pairs) as N[];
  return {
    names,
    toEnum: (name: N): E => pairs[name],
    /** An unspecified or unknown value is the caller's mistake: invalid_request. */
    toName(value: number, field = 'value'): N {
      const name = names.find((n) => pairs[n] === value);
      if (!name) throw domainError('invalid_request', `${field} must be one of ${names.join(', ')}`);
      return name;
    },
    isName: (value: unknown): value is N => typeof value === 'string' && (names as string[]).includes(value),
  };
}

export const ownerTypes = mapping({ user: OwnerType.OWNER_TYPE_USER, organization: OwnerType.OWNER_TYPE_ORGANIZATION });
export const plans = mapping({ free: Plan.PLAN_FREE, trial: Plan.PLAN_TRIAL, paid: Plan.PLAN_PAID });
export const rateTiers = mapping({ restricted: RateTier.RATE_TIER_RESTRICTED, standard: RateTier.RATE_TIER_STANDARD });
export const credentialKinds = mapping({ api_key: CredentialKind.CREDENTIAL_KIND_API_KEY, oauth: CredentialKind.CREDENTIAL_KIND_OAUTH });
export const keyEnvironments = mapping({ live: KeyEnvironment.KEY_ENVIRONMENT_LIVE, test: KeyEnvironment.KEY_ENVIRONMENT_TEST });
/**
 * A new key's environment where a person names none, the same on every surface (the settings
 * form, the admin CLI's `keys mint`): test, the safer one to hand out by mistake. Test and live keys
 * read and write the same data and spend the same credits: the prefix is only a label.
 */
export const DEFAULT_KEY_ENVIRONMENT = 'test' as const;
export const roles = mapping({ member: Role.ROLE_MEMBER, admin: Role.ROLE_ADMIN, owner: Role.ROLE_OWNER });

export type OwnerTypeName = (typeof ownerTypes.names)[number];
export type PlanName = (typeof plans.names)[number];
export type RateTierName = (typeof rateTiers.names)[number];
export type RoleName = (typeof roles.names)[number];
