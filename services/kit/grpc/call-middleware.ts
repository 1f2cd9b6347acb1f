// What every call of a service passes through before the service's own method, wherever the call
// comes from — over gRPC (server.ts) or in process (in-process.ts): counting and timing, an error
// boundary that never leaks internals, authentication that verifies the caller token — or, for a
// bearer that is not one, takes it as an internal team's own credential (direct-callers.ts) — and
// checks the method's access list (fail-closed: a method not in the list is refused; only the
// public RPCs' lists name the `direct` principal), and the refusal of text
// the store cannot keep (NUL, a lone surrogate) in any request (unstorable-text.ts). The request id
// is set on the active span and handed to the method (ServiceContext), whose log lines name it.
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
import { annotateActiveSpan, ATTR } from '../telemetry.js';
import { claimsEdgeIssuer, type TokenVerifier } from './caller-token.js';
import type { DirectCallers } from './direct-callers.js';
import { AT_THE_DOOR, dependencyUnavailableError, domainError, isUnavailable } from './errors.js';
import { isDependencyUnavailable } from '../dependencies/unavailable.js';
import { unstorableText } from './unstorable-text.js';
import type { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Principal, PrincipalKind } from './principal.js';
import { peerServiceOf } from './peer-role.js';

export interface ServiceContext {
  principal: Principal;
  /** The call's `x-request-id`: what a method logs for the call names it (`requestId`). */
  requestId: string;
  /**
   * The bearer the call came with (a caller token, or a direct caller's own credential), as
   * received: a service calling another for this caller forwards it (acting.ts `asCallerOf`).
   * Absent for a service's own call and for an in-process call that named its principal only.
   */
  credential?: string;
}

export interface ServiceRegistration<D extends TsProtoServiceDefinition = TsProtoServiceDefinition> {
  definition: D;
  /** Methods a release does not serve yet answer UNIMPLEMENTED. */
  implementation: Partial<ServiceImplementation<D, ServiceContext>>;
  /**
   * Who may call each method. Every method must be listed; an empty list refuses everyone. A list
   * naming `direct` makes the method public: internal teams call it with their own credentials, and
   * its proto comment says `@public` (test/grpc-public-surface.test.ts holds the two together).
   */
  access: { [M in keyof D['methods']]: readonly PrincipalKind[] };
  /**
   * Methods that answer the items of a top-level list field one by one (a bulk add): the field's
   * name. The door does not refuse the request for text in those items; the method rejects the
   * item in its result (unstorable-text.ts).
   */
  itemized?: { [M in keyof D['methods']]?: string };
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

export interface CallMiddlewareOptions {
  services: AnyServiceRegistration[];
  verifier: TokenVerifier;
  logger: Logger;
  /** Internal teams' own credentials (direct-callers.ts); unset, only caller tokens are accepted. */
  direct?: DirectCallers;
}

/** The middlewares of calls to `services`, outermost first (the gRPC server adds error details after `measure`). */
export function callMiddleware(options: CallMiddlewareOptions) {
  const { verifier, logger, direct } = options;
  // Access lists keyed by full method path, e.g. /expertnet.identity.v1.IdentityService/Authenticate.
  const access = new Map<string, readonly PrincipalKind[]>();
  const itemized = new Map<string, string>();
  for (const s of options.services) {
    const pathOf = (name: string) => `/${s.definition.fullName}/${s.definition.methods[name]!.name}`;
    for (const [name, kinds] of Object.entries(s.access)) access.set(pathOf(name), kinds as PrincipalKind[]);
    for (const [name, field] of Object.entries(s.itemized ?? {})) if (field) itemized.set(pathOf(name), field as string);
  }

  /**
   * Times a call and counts how it ended; the returned function ends it with its status code and
   * logs it at debug, one line per call served (its failures are logged at warn or error where
   * they are decided: atBoundary, the dependency's state).
   */
  function startMeasure(path: string, requestId: string): (code: Status) => void {
    const [grpc_service, grpc_method] = splitGrpcPath(path);
    const end = metrics.grpcDuration.startTimer({ grpc_service, grpc_method });
    return (code) => {
      const seconds = end();
      const grpc_code = Status[code] ?? String(code);
      metrics.grpcHandled.inc({ grpc_service, grpc_method, grpc_code });
      logger.debug({ method: grpc_method, grpc_code, duration_ms: Math.round(seconds * 10_000) / 10, ...(requestId && { requestId }) }, 'gRPC call served');
    };
  }

  /** The status code a failure ends a call with (for the metrics). */
  const codeOf = (error: unknown, context: CallContext): Status =>
    error instanceof ServerError ? error.code : context.signal.aborted ? Status.CANCELLED : Status.UNKNOWN;

  /**
   * What a failure becomes at the boundary: a ServerError (or a cancelled call's error) as is; a
   * dependency that cannot answer (Redis, the store, another service) UNAVAILABLE, not logged here
   * (its state logs the outage once: services/kit/dependencies/state.ts); anything else logged and
   * INTERNAL.
   */
  function atBoundary(error: unknown, path: string, context: CallContext): unknown {
    if (error instanceof ServerError || context.signal.aborted) return error;
    if (isDependencyUnavailable(error) || isUnavailable(error)) return dependencyUnavailableError();
    logger.error({ err: error, method: path, requestId: context.metadata.get('x-request-id') }, 'gRPC method failed');
    return new ServerError(Status.INTERNAL, 'internal error');
  }

  /**
   * The principal of the call: the caller token in `metadata` (the hot path: a token already
   * verified is a map lookup), else — for a bearer that is not one and does not claim the edge as
   * its issuer — the caller of an internal team's own credential, a `direct` principal (its RateLimit
   * fields go on `header`), or, relayed by a service serving that caller's call, a `caller`. A call
   * with no bearer over a connection whose client certificate names service roles
   * (`peerService`, peer-role.ts) is that service's own. UNAUTHENTICATED, with ErrorInfo
   * `unauthorized`, otherwise.
   */
  async function principalOf(metadata: Metadata, requestId: string, header: Metadata, path: string, peerService?: string): Promise<Principal> {
    const token = bearer(metadata);
    if (!token) {
      if (peerService) return { kind: 'service', service: peerService };
      throw domainError('unauthorized', 'missing credentials: send "authorization: Bearer <API key or access token>"', AT_THE_DOOR);
    }
    try {
      return await verifier.verify(token);
    } catch {
      if (!direct || claimsEdgeIssuer(token)) throw domainError('unauthorized', 'invalid caller token', AT_THE_DOOR);
    }
    if (peerService) return { kind: 'caller', caller: await direct.relayed(token, requestId) };
    return { kind: 'direct', caller: await direct.authenticate(token, requestId, header, path) };
  }

  /** Runs a direct caller's call, logging it as answered, with its failure if any (direct-callers.ts). */
  async function answeredDirectly<T>(caller: Caller, path: string, requestId: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let failure: unknown;
    try {
      return await run();
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      direct!.answered(caller, path, failure, performance.now() - started, requestId);
    }
  }

  /** Refuses a principal the method's access list does not name (fail-closed: an unlisted method refuses all). */
  function authorize(path: string, principal: Principal): void {
    const allowed = access.get(path) ?? [];
    if (!allowed.includes(principal.kind)) {
      const refusal =
        principal.kind === 'direct'
          ? `${methodName(path)} is not a public RPC: it serves the system's own roles only`
          : `${principal.kind} may not call ${methodName(path)}`;
      throw domainError('forbidden', refusal, principal.kind === 'direct' ? {} : AT_THE_DOOR);
    }
  }

  function refuseUnstorableIn(path: string, request: unknown): void {
    const found = unstorableText(request, itemized.get(path));
    if (found) throw domainError('invalid_request', `${found.path}: ${found.problem}`);
  }

  const requestIdOf = (context: CallContext) => String(context.metadata.get('x-request-id') ?? '');

  async function* measure<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    const end = startMeasure(call.method.path, requestIdOf(context));
    let code = Status.OK;
    try {
      return yield* call.next(call.request, context);
    } catch (error) {
      code = codeOf(error, context);
      throw error;
    } finally {
      end(code);
    }
  }

  async function* errorBoundary<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    try {
      return yield* call.next(call.request, context);
    } catch (error) {
      throw atBoundary(error, call.method.path, context);
    }
  }

  async function* authenticate<Req, Res>(call: ServerMiddlewareCall<Req, Res, ServiceContext>, context: CallContext) {
    const requestId = requestIdOf(context);
    if (requestId) annotateActiveSpan({ [ATTR.requestId]: requestId });
    if (UNAUTHENTICATED_PREFIXES.some((p) => call.method.path.startsWith(p))) {
      return yield* call.next(call.request, { ...context, principal: { kind: 'service', service: 'anonymous' }, requestId });
    }
    const principal = await principalOf(context.metadata, requestId, context.header, call.method.path, peerServiceOf(context.metadata));
    const credential = bearer(context.metadata);
    if (principal.kind !== 'direct') {
      authorize(call.method.path, principal);
      return yield* call.next(call.request, { ...context, principal, requestId, credential });
    }
    // A direct caller's answered call joins its request log, refusals included (as REST's do).
    const started = performance.now();
    let failure: unknown;
    try {
      authorize(call.method.path, principal);
      return yield* call.next(call.request, { ...context, principal, requestId, credential });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      direct!.answered(principal.caller, call.method.path, failure, performance.now() - started, requestId);
    }
  }

  // After authentication, so an unauthenticated caller learns nothing about its request's content.
  async function* refuseUnstorable<Req, Res>(call: ServerMiddlewareCall<Req, Res>, context: CallContext) {
    if (!call.requestStream) refuseUnstorableIn(call.method.path, call.request);
    return yield* call.next(call.request, context);
  }

  /**
   * One unary call made in this process (in-process.ts), through the same steps in the same order
   * as the middlewares above — measure, error boundary, authentication and access list, text — as
   * plain function calls. `principal`: the caller as the calling code of this process names it
   * (CallOptions.principal: nothing crosses a process boundary, so there is no token to verify);
   * absent, the call's metadata must carry a valid caller token, as over gRPC.
   */
  /** An in-process call once its caller is known: the access list, the text check, the method. */
  function serveUnary(
    path: string,
    request: unknown,
    context: CallContext,
    caller: Principal,
    requestId: string,
    handler: (request: unknown, context: CallContext & ServiceContext) => Promise<unknown>,
  ): Promise<unknown> {
    authorize(path, caller);
    refuseUnstorableIn(path, request);
    // Added to the call's own context (made for this call by the in-process client), not spread
    // into a copy: a copy would read, and so make, the signal the client makes only on demand.
    return handler(request, Object.assign(context, { principal: caller, requestId, credential: bearer(context.metadata) }));
  }

  async function runUnary(
    path: string,
    request: unknown,
    context: CallContext,
    principal: Principal | undefined,
    handler: (request: unknown, context: CallContext & ServiceContext) => Promise<unknown>,
  ): Promise<unknown> {
    const end = startMeasure(path, requestIdOf(context));
    let code = Status.OK;
    try {
      const requestId = requestIdOf(context);
      if (requestId) annotateActiveSpan({ [ATTR.requestId]: requestId });
      const caller = principal ?? (await principalOf(context.metadata, requestId, context.header, path));
      if (caller.kind === 'direct') {
        return await answeredDirectly(caller.caller, path, requestId, () => serveUnary(path, request, context, caller, requestId, handler));
      }
      return await serveUnary(path, request, context, caller, requestId, handler);
    } catch (error) {
      const failure = atBoundary(error, path, context);
      code = codeOf(failure, context);
      throw failure;
    } finally {
      end(code);
    }
  }

  return { measure, errorBoundary, authenticate, refuseUnstorable, runUnary };
}
