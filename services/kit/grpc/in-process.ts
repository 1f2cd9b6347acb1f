// A client of a service that runs in this process, calling its implementation directly instead of
// over loopback gRPC: the same generated client interface, the same steps as the gRPC server's
// middlewares (access list, refusal of unstorable text, error boundary, metrics: call-middleware.ts
// `runUnary`, as plain calls rather than a chain of generators) and the same failures on the caller's side (a
// ClientError, with ErrorInfo details when the service threw a domain error). Requests and
// responses are copied through the generated `fromPartial`, so neither side shares objects with the
// other, as across the wire. The caller is the principal the calling code names (`callAs`): a token
// proves a caller across a process boundary, and there is none here (a call that brings only
// metadata still needs a valid token). Used for the roles co-located in one process; a process
// calling a service it does not run keeps real gRPC.
import { ClientError, Metadata, ServerError, Status, type CallContext, type Client, type TsProtoServiceDefinition } from 'nice-grpc';
import { RichClientError, RichServerError } from 'nice-grpc-error-details';
import type { AnyServiceRegistration, ServiceContext } from './call-middleware.js';
import type { callMiddleware } from './call-middleware.js';
import { inStep } from '../telemetry.js';
import type { Principal } from './principal.js';

type Middlewares = ReturnType<typeof callMiddleware>;
type Handler = (request: unknown, context: CallContext & ServiceContext) => Promise<unknown>;
interface Message {
  fromPartial(object: unknown): unknown;
}
interface InProcessOptions {
  metadata?: Metadata;
  deadline?: Date | number;
  signal?: AbortSignal;
  /** The caller as the calling code names it (callAs): taken as is, no token signed or verified. */
  principal?: Principal;
}

/**
 * One call's context. Its signal, header and trailer are made when first read: most calls end
 * without anyone reading them, and making them on every call was a few per cent of the edge's
 * time. A class rather than an object of closures: nothing is made per call but the instance. It
 * listens to the caller's signal itself (`handleEvent`), aborting the call's own.
 */
class InProcessContext implements CallContext {
  readonly peer = 'in-process';
  #controller: AbortController | undefined;
  #header: Metadata | undefined;
  #trailer: Metadata | undefined;

  constructor(readonly metadata: Metadata) {}

  get header(): Metadata {
    return (this.#header ??= Metadata());
  }

  get trailer(): Metadata {
    return (this.#trailer ??= Metadata());
  }

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  sendHeader(): void {}

  /** The caller's signal aborted, or the deadline passed: the method sees its signal abort. */
  handleEvent(): void {
    (this.#controller ??= new AbortController()).abort();
  }
}

/** The failure a gRPC client would have seen for what the service threw. */
function asClientError(path: string, error: unknown): unknown {
  if (error instanceof ClientError) return error;
  if (error instanceof RichServerError) return new RichClientError(path, error.code, error.details, error.extra);
  if (error instanceof ServerError) return new ClientError(path, error.code, error.details);
  return new ClientError(path, Status.UNKNOWN, 'Unknown error');
}

/** A client of `registration` that calls it in this process through `middlewares`. */
export function inProcessClient<D extends TsProtoServiceDefinition>(
  registration: AnyServiceRegistration & { definition: D },
  middlewares: Middlewares,
): Client<D, { deadline?: Date | number }> {
  const client: Record<string, unknown> = {};
  const implementation = registration.implementation as Record<string, Handler | undefined>;
  const methods = registration.definition.methods as Record<string, { name: string; requestType: unknown; responseType: unknown }>;
  for (const [name, method] of Object.entries(methods)) {
    const path = `/${registration.definition.fullName}/${method.name}`;
    const spanAttributes = { 'rpc.system': 'in-process', 'rpc.service': registration.definition.fullName, 'rpc.method': method.name };
    const requestType = method.requestType as unknown as Message;
    const responseType = method.responseType as unknown as Message;
    const handler: Handler =
      implementation[name]?.bind(registration.implementation) ??
      (async () => {
        throw new ServerError(Status.UNIMPLEMENTED, `${registration.definition.name}.${name} is not served by this release`);
      });
    client[name] = async (request: unknown, options: InProcessOptions = {}) => {
      const context = new InProcessContext(options.metadata ?? Metadata());
      options.signal?.addEventListener('abort', context);
      let timer: NodeJS.Timeout | undefined;
      try {
        // A span per call where the gRPC instrumentation would have made one, so a trace still shows
        // which services a request called (and their statements beneath them).
        const call = inStep(path.slice(1), spanAttributes, () =>
          middlewares.runUnary(path, requestType.fromPartial(request ?? {}), context, options.principal, handler));
        const offset = options.deadline instanceof Date ? options.deadline.getTime() - Date.now() : options.deadline;
        const response =
          offset === undefined
            ? await call
            : await Promise.race([
                call,
                new Promise<never>((_, reject) => {
                  // As a gRPC deadline: the caller gets DEADLINE_EXCEEDED, the method sees its signal abort.
                  timer = setTimeout(() => {
                    context.handleEvent();
                    reject(new ClientError(path, Status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
                  }, Math.max(0, offset));
                }),
              ]);
        return responseType.fromPartial(response);
      } catch (error) {
        throw asClientError(path, error);
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', context);
      }
    };
  }
  return client as unknown as Client<D, { deadline?: Date | number }>;
}
