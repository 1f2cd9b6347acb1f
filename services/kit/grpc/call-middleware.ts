// What every call of a service passes through before the service's own method, wherever the call
// comes from — over gRPC (server.ts) or in process (in-process.ts): counting and timing, an error
// boundary that never leaks internals, authentication that verifies the caller token and checks the
// method's access list (fail-closed: a method not in the list is refused), and the refusal of NUL in
// any request text (no-nul.ts). The request id is set on the active span and on log lines (telemetry.ts).
import {
  Metadata,
  ServerError,
  Status,
  type CallContext,
  type ServerMiddlewareCall,
  type ServiceImplementation,
  type TsProtoServiceDefinition,
} from 'nice-grpc';
import type { Logger } from '../logger.js';
import { metrics, splitGrpcPath } from '../metrics.js';
import { annotateActiveSpan, ATTR, withRequestContext } from '../telemetry.js';
import type { TokenVerifier } from './caller-token.js';
import { domainError } from './errors.js';
import { NUL_MESSAGE, nulPath } from './no-nul.js';
import { describePrincipal, type Principal, type PrincipalKind } from './principal.js';

export interface ServiceContext {
  principal: Principal;
  requestId: string;
}

export interface ServiceRegistration<D extends TsProtoServiceDefinition = TsProtoServiceDefinition> {
  definition: D;
  /** Methods a release does not serve yet answer UNIMPLEMENTED. */
  implementation: Partial<ServiceImplementation<D, ServiceContext>>;
  /** Who may call each method. Every method must be listed; an empty list refuses everyone. */
  access: { [M in keyof D['methods']]: readonly PrincipalKind[] };
}

/** A registration of any service, for code that starts servers (definitions differ per service). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyServiceRegistration = ServiceRegistration<any>;

/** gRPC health and reflection answer anyone (probes and tools carry no caller token). */
const UNAUTHENTICATED_PREFIXES = ['/grpc.health.v1.Health/', '/grpc.reflection.'];

function bearer(metadata: Metadata): string | undefined {
  const value = metadata.get('authorization');
  return typeof value === 'string' && value.startsWith('Bearer ') ? value.slice(7) : undefined;
}

function methodName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The middlewares of calls to `services`, outermost first (the gRPC server adds error details after `measure`). */
export function callMiddleware(options: { services: AnyServiceRegistration[]; verifier: TokenVerifier; logger: Logger }) {
  const { verifier, logger } = options;
  // Access lists keyed by full method path, e.g. /expertnet.identity.v1.IdentityService/Authenticate.
  const access = new Map<string, readonly PrincipalKind[]>();
  for (const s of options.services) {
    for (const [name, kinds] of Object.entries(s.access)) {
      access.set(`/${s.definition.fullName}/${s.definition.methods[name]!.name}`, kinds as PrincipalKind[]);
    }
  }

  async function* measure<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    const [grpc_service, grpc_method] = splitGrpcPath(call.method.path);
    const end = metrics.grpcDuration.startTimer({ grpc_service, grpc_method });
    let code = Status.OK;
    try {
      return yield* call.next(call.request, context);
    } catch (error) {
      code = error instanceof ServerError ? error.code : context.signal.aborted ? Status.CANCELLED : Status.UNKNOWN;
      throw error;
    } finally {
      end();
      metrics.grpcHandled.inc({ grpc_service, grpc_method, grpc_code: Status[code] ?? String(code) });
    }
  }

  async function* errorBoundary<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    try {
      return yield* call.next(call.request, context);
    } catch (error) {
      if (error instanceof ServerError) throw error;
      if (context.signal.aborted) throw error;
      logger.error({ err: error, method: call.method.path, requestId: context.metadata.get('x-request-id') }, 'gRPC method failed');
      throw new ServerError(Status.INTERNAL, 'internal error');
    }
  }

  async function* authenticate<Req, Res>(call: ServerMiddlewareCall<Req, Res, ServiceContext>, context: CallContext) {
    const requestId = String(context.metadata.get('x-request-id') ?? '');
    if (requestId) annotateActiveSpan({ [ATTR.requestId]: requestId });
    if (UNAUTHENTICATED_PREFIXES.some((p) => call.method.path.startsWith(p))) {
      return yield* call.next(call.request, { ...context, principal: { kind: 'service', service: 'anonymous' }, requestId });
    }
    const token = bearer(context.metadata);
    if (!token) throw new ServerError(Status.UNAUTHENTICATED, 'missing caller token');
    let principal: Principal;
    try {
      principal = await verifier.verify(token);
    } catch {
      throw new ServerError(Status.UNAUTHENTICATED, 'invalid caller token');
    }
    const allowed = access.get(call.method.path) ?? [];
    if (!allowed.includes(principal.kind)) {
      throw new ServerError(
        Status.PERMISSION_DENIED,
        `${describePrincipal(principal).split(':')[0]} may not call ${methodName(call.method.path)}`,
      );
    }
    const next = call.next(call.request, { ...context, principal, requestId }) as AsyncGenerator<Res, Res | void, undefined>;
    return yield* withRequestContext(requestId, next);
  }

  // After authentication, so an unauthenticated caller learns nothing about its request's content.
  async function* refuseNul<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    if (!call.requestStream) {
      const at = nulPath(call.request);
      if (at !== undefined) throw domainError('invalid_request', `${at}: ${NUL_MESSAGE}`);
    }
    return yield* call.next(call.request, context);
  }

  return { measure, errorBoundary, authenticate, refuseNul };
}
