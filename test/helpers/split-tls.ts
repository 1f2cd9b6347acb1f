// A service a test serves apart from the rest of its system (its own gRPC server, as in a
// multi-process deployment) talks to that system over mutual TLS, as processes do: services know
// each other by their client certificates (services/kit/grpc/peer-role.ts). One CA, a certificate
// for the service's server and one for the system, whose common name lists its roles.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localCertificate } from '../../deploy/launcher/grpc-tls.js';
import type { ServiceRole } from '../../services/kit/config.js';
import { readGrpcTls, type GrpcTls } from '../../services/kit/tls.js';

export function splitTls(service: ServiceRole, systemRoles: string[]): { serverTls: GrpcTls; systemEnv: Record<string, string> } {
  const folder = mkdtempSync(join(tmpdir(), 'en-split-tls-'));
  const hosts = ['localhost', '127.0.0.1'];
  const system = localCertificate(folder, systemRoles.join('+'), hosts);
  return {
    serverTls: readGrpcTls(localCertificate(folder, service, hosts)),
    systemEnv: { ROLES: systemRoles.join(','), GRPC_TLS_CA_FILE: system.caFile, GRPC_TLS_CERT_FILE: system.certFile, GRPC_TLS_KEY_FILE: system.keyFile },
  };
}
