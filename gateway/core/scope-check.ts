// The scope rule of the endpoint table, for both surfaces: a caller without the endpoint's scope is
// 403 forbidden naming it; an endpoint without a scope accepts any valid credential.
import type { Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Scope } from '../../services/kit/scopes.js';
import { ApiError } from './api-error.js';

export function requireScope(caller: Caller, scope: Scope | null): void {
  if (scope && !caller.scopes.includes(scope)) {
    throw new ApiError(403, 'forbidden', `this credential lacks the ${scope} scope`, { required_scope: scope });
  }
}
