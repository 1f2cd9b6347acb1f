// A service's gRPC server: the service's own methods plus gRPC health and server reflection,
// behind the call middlewares every call of a service passes (call-middleware.ts: counting, an
// error boundary, caller-token authentication and access lists, refusal of unstorable text), with gRPC error
// details added on the wire. Over mutual TLS, a client certificate naming service roles makes a call
// without a token that service's own (peer-role.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, ServerError, Status } from 'nice-grpc';
import { errorDetailsServerMiddleware } from 'nice-grpc-error-details';
import { HealthDefinition, HealthServiceImpl, HealthState } from 'nice-grpc-server-health';
import { ServerReflection, ServerReflectionService } from 'nice-grpc-server-reflection';
import type { Logger } from '../logger.js';
import { serverCredentialsOf, type GrpcTls } from '../tls.js';
import { repoRoot } from '../paths.js';
import type { TokenVerifier } from './caller-token.js';
import { callMiddleware, type AnyServiceRegistration } from './call-middleware.js';
import type { DirectCallers } from './direct-callers.js';
import { peerCertificateInterceptor } from './peer-role.js';

export type { AnyServiceRegistration, ServiceContext, ServiceRegistration } from './call-middleware.js';

export interface RunningGrpcServer {
  address: string;
  port: number;
  health: HealthState;
  shutdown(): Promise<void>;
}

const descriptorSetPath = join(repoRoot, 'proto', 'gen', 'descriptors.binpb');

export async function startGrpcServer(options: {
  address: string;
  services: AnyServiceRegistration[];
  verifier: TokenVerifier;
  logger: Logger;
  /** Mutual TLS: a client without a certificate from the CA is refused at the handshake. Unset: plaintext. */
  tls?: GrpcTls;
  /** Internal teams' own credentials, besides caller tokens (direct-callers.ts). */
  direct?: DirectCallers;
}): Promise<RunningGrpcServer> {
  const { measure, errorBoundary, authenticate, refuseUnstorable } = callMiddleware(options);
  // The interceptor hands the door the client certificate's name (peer-role.ts): how services know each other.
  const server = createServer({ interceptors: [peerCertificateInterceptor] }).use(measure).use(errorDetailsServerMiddleware).use(errorBoundary).use(authenticate).use(refuseUnstorable);
  const health = HealthState();
  server.add(HealthDefinition, HealthServiceImpl(health));
  for (const s of options.services) {
    const implementation: Record<string, unknown> = { ...(s.implementation as object) };
    for (const name of Object.keys(s.definition.methods)) {
      implementation[name] ??= async () => {
        throw new ServerError(Status.UNIMPLEMENTED, `${s.definition.name}.${name} is not served by this release`);
      };
    }
    server.add(s.definition as never, implementation as never);
    health.setStatus('healthy', s.definition.fullName);
  }
  server.add(
    ServerReflectionService,
    ServerReflection(readFileSync(descriptorSetPath), options.services.map((s) => s.definition.fullName)),
  );

  const port = await server.listen(options.address, serverCredentialsOf(options.tls));
  const host = options.address.slice(0, options.address.lastIndexOf(':'));
  return {
    address: `${host}:${port}`,
    port,
    health,
    async shutdown() {
      health.setStatus('unhealthy');
      await server.shutdown();
    },
  };
}
