// Typed gRPC clients for the five services, shared by the edge, the services and the admin CLI.
// Each call names its principal, its request id and a deadline (`callAs`, or a service's
// acting.ts); a call over gRPC carries the principal as a signed caller token, signed on its way out
// by a process that holds the edge's (or the operator's) key, or forwarded as received by a service
// acting for the caller it serves; a service's own call carries none, its client certificate says
// who calls (peer-role.ts). An in-process call takes the principal as is (in-process.ts). Failures
// keep their ErrorInfo details (see errors.ts).
import { createChannel, createClientFactory, Metadata, type Channel, type Client, type ClientMiddleware } from 'nice-grpc';
import { deadlineMiddleware } from 'nice-grpc-client-middleware-deadline';
import { errorDetailsClientMiddleware } from 'nice-grpc-error-details';
import { BillingServiceDefinition } from '../../../proto/gen/expertnet/billing/v1/billing_service.js';
import { CommunitiesServiceDefinition } from '../../../proto/gen/expertnet/communities/v1/communities_service.js';
import { EnrichmentServiceDefinition } from '../../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { IdentityServiceDefinition } from '../../../proto/gen/expertnet/identity/v1/identity_service.js';
import { SearchServiceDefinition } from '../../../proto/gen/expertnet/search/v1/search_service.js';
import type { ServiceRole } from '../config.js';
import type { Logger } from '../logger.js';
import { channelCredentialsOf, tlsChannelOptions, type GrpcTls } from '../tls.js';
import { observedCalls } from './client-calls.js';
import type { TokenSigner } from './caller-token.js';
import type { Principal } from './principal.js';

export interface ServiceClients {
  identity: Client<typeof IdentityServiceDefinition, CallOptionsExt>;
  communities: Client<typeof CommunitiesServiceDefinition, CallOptionsExt>;
  search: Client<typeof SearchServiceDefinition, CallOptionsExt>;
  enrichment: Client<typeof EnrichmentServiceDefinition, CallOptionsExt>;
  billing: Client<typeof BillingServiceDefinition, CallOptionsExt>;
  /** How each service is reached: over gRPC, or called in this process (it runs here). */
  transport: Record<ServiceRole, 'grpc' | 'in-process'>;
  close(): void;
}

/** In-process clients of the services this process runs (in-process.ts); the others are called over gRPC. */
export type LocalClients = Partial<Omit<ServiceClients, 'close' | 'transport'>>;

type CallOptionsExt = {
  deadline?: Date | number;
  /** Who is calling, and the signer that turns it into a caller token for a call over gRPC (edge and admin processes only). */
  principal?: Principal;
  signer?: TokenSigner | undefined;
};

export interface CallOptions extends CallOptionsExt {
  metadata: Metadata;
}

/** Builds the options of one call: who is calling, under which request id, and until when. */
export async function callAs(
  signer: TokenSigner | undefined,
  principal: Principal,
  requestId: string | undefined,
  deadlineMs: number,
): Promise<CallOptions> {
  const metadata = Metadata();
  if (requestId) metadata.set('x-request-id', requestId);
  return { metadata, deadline: deadlineMs, principal, signer };
}

/**
 * Puts the call's principal on the wire as a signed caller token. A call that brings its own token
 * (forwarded, or an internal team's credential) keeps it; a service's own call carries none.
 */
const signPrincipal: ClientMiddleware<CallOptionsExt> = async function* (call, options) {
  const { principal, signer, ...rest } = options;
  if (!principal || principal.kind === 'service' || rest.metadata?.has('authorization')) return yield* call.next(call.request, rest);
  if (!signer) {
    // A service process holds no signing key: it forwards the token of the call it serves (acting.ts).
    throw new Error(`no caller-token key in this process to sign a ${principal.kind} principal, and no token to forward`);
  }
  const metadata = Metadata(rest.metadata);
  metadata.set('authorization', `Bearer ${await signer.sign(principal)}`);
  return yield* call.next(call.request, { ...rest, metadata });
};

/**
 * Reconnection to a service that went away is retried at most a second apart (grpc-js would
 * otherwise double its wait up to 120 s), so callers reach a restarted service within seconds.
 */
export const CHANNEL_OPTIONS = { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 1000 } as const;

/** `logger`: where a service that cannot be reached is named (client-calls.ts); `tls`: mutual TLS (tls.ts), else plaintext. */
export function createServiceClients(addresses: Record<ServiceRole, string>, local: LocalClients = {}, options: { logger?: Logger; tls?: GrpcTls } = {}): ServiceClients {
  const channels: Channel[] = [];
  // Each target's calls are counted under its name, outermost (nice-grpc runs the middleware added
  // last first): the call's whole time, and the status and error details its caller sees.
  const factoryFor = (role: ServiceRole) =>
    createClientFactory().use(signPrincipal).use(errorDetailsClientMiddleware).use(deadlineMiddleware).use(observedCalls(role, options.logger));
  const transport = {} as Record<ServiceRole, 'grpc' | 'in-process'>;
  const open = <D extends Parameters<ReturnType<typeof factoryFor>['create']>[0]>(definition: D, role: ServiceRole) => {
    const here = local[role] as Client<D, CallOptionsExt> | undefined;
    transport[role] = here ? 'in-process' : 'grpc';
    if (here) return here;
    const channel = createChannel(addresses[role], channelCredentialsOf(options.tls), { ...CHANNEL_OPTIONS, ...tlsChannelOptions(addresses[role], options.tls) });
    channels.push(channel);
    return factoryFor(role).create(definition, channel);
  };
  return {
    identity: open(IdentityServiceDefinition, 'identity'),
    communities: open(CommunitiesServiceDefinition, 'communities'),
    search: open(SearchServiceDefinition, 'search'),
    enrichment: open(EnrichmentServiceDefinition, 'enrichment'),
    billing: open(BillingServiceDefinition, 'billing'),
    transport,
    close: () => channels.forEach((c) => c.close()),
  };
}
