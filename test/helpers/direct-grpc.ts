// An internal team's view of the services: clients of every service's gRPC address made with the
// generated definitions and nothing of the system's own (no signer, no caller token), a bearer's
// call options, and the outcome of a call as the contract reports it (status, ErrorInfo reason).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelCredentials, createChannel, createClientFactory, Metadata, Status, type Channel } from 'nice-grpc';
import { errorDetailsClientMiddleware } from 'nice-grpc-error-details';
import { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { CommunitiesServiceDefinition } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { EnrichmentServiceDefinition } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { IdentityServiceDefinition } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { SearchServiceDefinition } from '../../proto/gen/expertnet/search/v1/search_service.js';
import type { ServiceRole } from '../../services/kit/config.js';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { repoRoot } from '../../services/kit/paths.js';

/** `credentials`: the channels' TLS credentials, where the listeners require mutual TLS. */
export function directClients(addresses: Record<ServiceRole, string>, credentials?: ChannelCredentials) {
  const channels: Channel[] = [];
  const factory = createClientFactory().use(errorDetailsClientMiddleware);
  const open = <D extends Parameters<typeof factory.create>[0]>(definition: D, role: ServiceRole) => {
    const channel = createChannel(addresses[role], credentials);
    channels.push(channel);
    return factory.create(definition, channel);
  };
  return {
    identity: open(IdentityServiceDefinition, 'identity'),
    communities: open(CommunitiesServiceDefinition, 'communities'),
    search: open(SearchServiceDefinition, 'search'),
    enrichment: open(EnrichmentServiceDefinition, 'enrichment'),
    billing: open(BillingServiceDefinition, 'billing'),
    close: () => channels.forEach((c) => c.close()),
  };
}

export type DirectClients = ReturnType<typeof directClients>;

/** The TLS variables a client of mutual-TLS listeners holds (GRPC_TLS_CA_FILE, _CERT_FILE, _KEY_FILE), when `env` names them. */
export function tlsOf(env: Record<string, string | undefined>): { credentials: ChannelCredentials; env: Record<string, string> } | undefined {
  const [ca, cert, key] = [env.GRPC_TLS_CA_FILE, env.GRPC_TLS_CERT_FILE, env.GRPC_TLS_KEY_FILE];
  if (!ca || !cert || !key) return undefined;
  return {
    credentials: ChannelCredentials.createSsl(readFileSync(ca), readFileSync(key), readFileSync(cert)),
    env: { GRPC_TLS_CA_FILE: ca, GRPC_TLS_CERT_FILE: cert, GRPC_TLS_KEY_FILE: key },
  };
}

/** Call options presenting `secret` (an API key or an access token) as the bearer; `header` receives the response's header metadata. */
export function asBearer(secret: string, onHeader?: (header: Metadata) => void) {
  return { metadata: Metadata({ authorization: `Bearer ${secret}` }), deadline: Date.now() + 20_000, ...(onHeader && { onHeader }) };
}

export type GrpcOutcome<T> = { ok: true; value: T } | { ok: false; status: string; reason: string | undefined; message: string; metadata: Record<string, string> };

/** What a call ended with: its answer, or its status name and ErrorInfo (reason, metadata). */
export async function outcomeOf<T>(call: Promise<T>): Promise<GrpcOutcome<T>> {
  try {
    return { ok: true, value: await call };
  } catch (error) {
    const remote = readRemoteError(error);
    if (!remote) throw error;
    return { ok: false, status: Status[remote.status]!, reason: remote.code, message: remote.message, metadata: remote.metadata };
  }
}

/**
 * Runs the internal team's client (test/fixtures/grpc-direct/client.ts) in a process of its own,
 * with nothing of the system's environment (no secrets, no data folder): only what `env` gives it.
 * Its one JSON line: what it got, or `{ error }`.
 */
export function runTeamClient(env: Record<string, string>): Promise<{ code: number; out: any }> {
  const tsx = join(repoRoot, 'node_modules/tsx/dist/cli.mjs');
  const script = join(repoRoot, 'test/fixtures/grpc-direct/client.ts');
  const childEnv = { PATH: process.env.PATH ?? '', ...env };
  return new Promise((resolve) => {
    execFile(process.execPath, [tsx, script], { cwd: repoRoot, env: childEnv, timeout: 60_000 }, (error, stdout) => {
      resolve({ code: error ? 1 : 0, out: JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') });
    });
  });
}
