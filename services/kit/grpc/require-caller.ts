// Services re-check what the edge checked: a method meant for end users needs a caller principal
// holding the scope the endpoint table names. Missing scope → forbidden, naming the scope.
import type { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Scope } from '../scopes.js';
import { domainError } from './errors.js';
import type { ServiceContext } from './server.js';

export function requireCaller(ctx: ServiceContext, scope?: Scope): Caller {
  if (ctx.principal.kind !== 'caller') throw domainError('forbidden', 'this method acts for an end user');
  const caller = ctx.principal.caller;
  if (scope && !caller.scopes.includes(scope)) {
    throw domainError('forbidden', `this credential lacks the ${scope} scope`, { required_scope: scope });
  }
  return caller;
}
