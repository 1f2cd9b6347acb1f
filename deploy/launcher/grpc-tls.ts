// How this process's gRPC is carried, decided once from its configuration and said in one start-up
// line (the same decision in the admin CLI, from the same environment, reaches the same system):
//
// - GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE set (Kubernetes: cert-manager's
//   files; the local topology: its own): mutual TLS with them.
// - none set, every gRPC address on loopback, and this process runs every service role (`npm start`)
//   or none (an edge-only process, the admin CLI: they sign their tokens): plaintext; nothing leaves
//   this machine.
// - otherwise (an address off loopback, or some service roles here and the others elsewhere, which
//   know each other only by their client certificates: services/kit/grpc/peer-role.ts): mutual TLS
//   with a CA and a certificate for this process made in DATA_DIR/grpc-tls on first start (the
//   processes of one data folder share the CA).
//
// DATA_DIR/grpc-tls/ca/{ca.pem,ca-key.pem} and DATA_DIR/grpc-tls/<name>/{cert.pem,key.pem}: each
// folder is written whole under a temporary name and renamed into place, which fails if another
// process got there first; its folder is then used. Delete a folder to have it made anew.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, grpcAddressesOf, SERVICE_ROLES, type Config } from '../../services/kit/config.js';
import { readGrpcTls, type GrpcTls, type GrpcTlsFiles } from '../../services/kit/tls.js';
import { createCertificateAuthority, issueCertificate, type PemPair } from '../../services/kit/tls-certificates.js';
import { isLoopbackHost } from '../../services/kit/url-host.js';

export const LOCAL_TLS_FOLDER = 'grpc-tls';

export interface GrpcTransport {
  /** The CA, certificate and key of this process; undefined: plaintext. */
  tls?: GrpcTls;
  /** The start-up line that says which, and why. */
  said: string;
}

const hostOf = (address: string) => address.slice(0, address.lastIndexOf(':'));

/** Every gRPC address this process listens on or calls is on loopback. */
export function grpcOnLoopback(config: Config): boolean {
  return Object.values(grpcAddressesOf(config)).every((a) => isLoopbackHost(hostOf(a)));
}

export function tlsFilesOf(config: Config): GrpcTlsFiles | undefined {
  const { GRPC_TLS_CA_FILE: caFile, GRPC_TLS_CERT_FILE: certFile, GRPC_TLS_KEY_FILE: keyFile } = config;
  return caFile && certFile && keyFile ? { caFile, certFile, keyFile } : undefined;
}

/** The local CA's folder, or undefined for an in-memory store (`memory://`), which has no folder. */
export function localTlsFolder(dataDir: string): string | undefined {
  return dataDir.startsWith('memory://') ? undefined : join(dataDir, LOCAL_TLS_FOLDER);
}

/**
 * Writes the files `make` returns into `folder` unless it holds `first` already (made only then: a
 * key and a certificate are not made to be thrown away); either way the folder then holds the
 * first writer's files.
 */
function createFolderOnce(folder: string, first: string, make: () => Record<string, string>): void {
  try {
    readFileSync(join(folder, first));
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temporary = `${folder}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  mkdirSync(temporary, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(make())) writeFileSync(join(temporary, name), content, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(temporary, folder);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/** The data folder's CA as it is, or undefined when none was made there yet. */
export function existingCertificateAuthority(tlsFolder: string): (PemPair & { caFile: string }) | undefined {
  const caFile = join(tlsFolder, 'ca', 'ca.pem');
  try {
    return { caFile, cert: readFileSync(caFile, 'utf8'), key: readFileSync(join(tlsFolder, 'ca', 'ca-key.pem'), 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The data folder's CA, made on first use. */
export function localCertificateAuthority(tlsFolder: string): PemPair & { caFile: string } {
  const folder = join(tlsFolder, 'ca');
  mkdirSync(tlsFolder, { recursive: true, mode: 0o700 });
  createFolderOnce(folder, 'ca.pem', () => {
    const ca = createCertificateAuthority(`Expert Network gRPC CA ${randomBytes(4).toString('hex')}`);
    return { 'ca.pem': ca.cert, 'ca-key.pem': ca.key };
  });
  const caFile = join(folder, 'ca.pem');
  return { caFile, cert: readFileSync(caFile, 'utf8'), key: readFileSync(join(folder, 'ca-key.pem'), 'utf8') };
}

/**
 * The certificate `name` holds from the data folder's CA, made on first use: a role's (server and
 * client, for `hosts`), or a client's only (no hosts).
 */
export function localCertificate(tlsFolder: string, name: string, hosts: string[] = []): GrpcTlsFiles {
  if (!/^[a-z0-9][a-z0-9_.+-]{0,62}$/i.test(name) || name === 'ca') throw new Error(`not a certificate name: ${name}`);
  const ca = localCertificateAuthority(tlsFolder);
  const folder = join(tlsFolder, name);
  createFolderOnce(folder, 'cert.pem', () => {
    const issued = issueCertificate(ca, { name, hosts });
    return { 'cert.pem': issued.cert, 'key.pem': issued.key };
  });
  return { caFile: ca.caFile, certFile: join(folder, 'cert.pem'), keyFile: join(folder, 'key.pem') };
}

/** What a role's certificate answers for: this machine, its roles (compose and Kubernetes service names) and its own listen hosts. */
export function roleHosts(names: string[], config?: Config): string[] {
  const own = config ? Object.values(grpcAddressesOf(config)).map(hostOf).filter((h) => !['0.0.0.0', '[::]', '::'].includes(h)) : [];
  return [...new Set(['localhost', '127.0.0.1', '::1', hostname(), ...names, ...own.map((h) => h.replace(/^\[|\]$/g, ''))])];
}

/**
 * The transport of this process: `name` names its certificate when it is made here (its roles; the
 * admin CLI: `operator`). `tlsRequired`: the system it calls said it serves mutual TLS
 * (running-file.ts), whatever this process's own addresses.
 */
export function grpcTransportOf(config: Config, name = config.ROLES.join('+'), tlsRequired = false): GrpcTransport {
  const files = tlsFilesOf(config);
  if (files) return { tls: readGrpcTls(files), said: `gRPC:      mutual TLS (GRPC_TLS_CA_FILE ${files.caFile})` };
  const servicesHere = SERVICE_ROLES.filter((role) => config.ROLES.includes(role)).length;
  const servicesSplit = servicesHere > 0 && servicesHere < SERVICE_ROLES.length;
  if (!tlsRequired && !servicesSplit && grpcOnLoopback(config)) {
    return { said: 'gRPC:      plaintext: every gRPC address is on loopback, and no service here calls a service elsewhere' };
  }
  const folder = localTlsFolder(config.DATA_DIR);
  if (!folder) {
    throw new ConfigError(['GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE: needed for gRPC off loopback, or between services in separate processes, without a DATA_DIR folder']);
  }
  const made = localCertificate(folder, name, roleHosts(config.ROLES, config));
  return { tls: readGrpcTls(made), said: `gRPC:      mutual TLS (CA and certificates in ${folder})` };
}
