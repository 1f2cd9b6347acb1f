// What every admin command shares: the services, reached over gRPC as the operator (connected on
// first use, so `--help` and usage errors need no running system; found as locate-system.ts says),
// and the operator's identity.
import { loadConfig } from '../../services/kit/config.js';
import { callAs, type CallOptions, type ServiceClients } from '../../services/kit/grpc/client.js';
import { connectToServices, type ServiceConnection } from '../launcher/wiring.js';
import { locateSystem, type SystemLocation } from './locate-system.js';

/** A mistake in how the command was called: printed with a pointer to its --help, exit 1. */
export class UsageError extends Error {}

export interface AdminContext {
  /** Who the services record as acting: `cli:<login name>`. */
  readonly actor: string;
  services(): ServiceConnection;
  clients(): ServiceClients;
  /** Where the system is: its gRPC addresses and the public URLs it bound (sign-in links). */
  location(): SystemLocation;
  /** Options of one call as the operator, with its own deadline (30 s unless given). */
  call(deadlineMs?: number): Promise<CallOptions>;
  close(): void;
}

export function createAdminContext(): AdminContext {
  let connection: ReturnType<typeof connectToServices> | undefined;
  let located: SystemLocation | undefined;
  const actor = `cli:${process.env.USER ?? 'operator'}`;
  const location = () => (located ??= locateSystem(loadConfig()));
  const services = () => (connection ??= connectToServices(loadConfig(), location().addresses, 'operator', location().grpcTls));
  return {
    actor,
    services,
    location,
    clients: () => services().clients,
    call: (deadlineMs = 30_000) => callAs(services().signer, { kind: 'operator', actor }, undefined, deadlineMs),
    close: () => connection?.clients.close(),
  };
}
