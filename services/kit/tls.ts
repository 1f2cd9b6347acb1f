// Mutual TLS of the gRPC listeners and their clients. A process that serves or calls gRPC off
// loopback holds three PEM files: the deployment's CA, its own certificate and its key. Its
// servers present the certificate and require one from every client, signed by the same CA (a
// connection without one is refused at the handshake); its clients present theirs and check the
// server's against the CA. The certificate serves both ways (serverAuth and clientAuth).
import { readFileSync } from 'node:fs';
import { credentials, ServerCredentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { isIP } from 'node:net';

export interface GrpcTls {
  /** The CA every certificate of the deployment is signed by (PEM). */
  ca: Buffer;
  /** This process's certificate chain and its private key (PEM). */
  cert: Buffer;
  key: Buffer;
}

export interface GrpcTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export function readGrpcTls(files: GrpcTlsFiles): GrpcTls {
  return { ca: readFileSync(files.caFile), cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
}

/** A client's credentials: its certificate, and the CA the server's must be signed by; plaintext without TLS. */
export function channelCredentialsOf(tls: GrpcTls | undefined): ChannelCredentials {
  return tls ? credentials.createSsl(tls.ca, tls.key, tls.cert) : credentials.createInsecure();
}

/**
 * Channel options for TLS to `address`: a loopback IP, or the any-address a process listening on
 * every interface reports (0.0.0.0, ::), is this machine, verified (and named in SNI) as
 * `localhost`, which every locally made certificate holds, rather than as the IP itself (TLS may
 * not name a server by IP: RFC 6066). Other addresses are verified as they are written.
 */
export function tlsChannelOptions(address: string, tls: GrpcTls | undefined): ChannelOptions {
  const host = address.slice(0, address.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  const loopbackIp = isIP(host) !== 0 && (host.startsWith('127.') || ['::1', '0.0.0.0', '::'].includes(host));
  return tls && loopbackIp ? { 'grpc.ssl_target_name_override': 'localhost' } : {};
}

/** A server's credentials: its certificate, and a client certificate required, signed by the CA; plaintext without TLS. */
export function serverCredentialsOf(tls: GrpcTls | undefined): ServerCredentials {
  return tls ? ServerCredentials.createSsl(tls.ca, [{ private_key: tls.key, cert_chain: tls.cert }], true) : ServerCredentials.createInsecure();
}
