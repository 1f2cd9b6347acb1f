// Services re-check what the edge checked: a method meant for end users needs a caller principal
// (brought by the edge, or a direct caller on a public RPC) holding the scope the endpoint table
// names. Missing scope → forbidden, naming the scope.
import type { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Scope } from '../scopes.js';
import { domainError } from './errors.js';
import { callerOf } from './principal.js';
import type { ServiceContext } from './server.js';

export function requireCaller(ctx: ServiceContext, scope?: Scope): Caller {
  const caller = callerOf(ctx.principal);
  if (!caller) throw domainError('forbidden', 'this method acts for an end user');
  if (scope && !caller.scopes.includes(scope)) {
    throw domainError('forbidden', `this credential lacks the ${scope} scope`, { required_scope: scope });
  }
  return caller;
}
