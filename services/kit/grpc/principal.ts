// Who is calling a service, as the signed token in the call's metadata says:
// - caller:   an end user's credential, resolved by the edge (REST or MCP);
// - direct:   an end user's credential (an API key or an OAuth access token for the gRPC API)
//             presented to a service directly, without the edge (an internal team's client):
//             authenticated by identity on every call (direct-callers.ts), allowed only on the
//             public RPCs — an access list must name `direct` for it, so plumbing refuses it;
// - edge:     the edge itself before a caller exists (it asks identity to authenticate);
// - operator: the admin CLI or seed loader;
// - service:  one service calling another for its own work (no end user behind it);
// - user:     a person signed in to the settings web app, acting on their own account (no API
//             credential: the settings surface resolved a server-side session).
import { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';

export type Principal =
  | { kind: 'caller'; caller: Caller }
  | { kind: 'direct'; caller: Caller }
  | { kind: 'edge' }
  | { kind: 'operator'; actor: string }
  | { kind: 'service'; service: string }
  | { kind: 'user'; userId: string };

export type PrincipalKind = Principal['kind'];

/** The end user's credential behind a call, whether the edge or the credential itself brought it. */
export function callerOf(p: Principal): Caller | undefined {
  return p.kind === 'caller' || p.kind === 'direct' ? p.caller : undefined;
}

export function describePrincipal(p: Principal): string {
  switch (p.kind) {
    case 'caller':
      return `caller:${p.caller.credentialId}`;
    case 'direct':
      return `direct:${p.caller.credentialId}`;
    case 'edge':
      return 'edge';
    case 'operator':
      return `operator:${p.actor}`;
    case 'service':
      return `service:${p.service}`;
    case 'user':
      return `user:${p.userId}`;
  }
}
