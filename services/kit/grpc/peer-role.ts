// Services know each other by their mutual-TLS client certificates, not by a key they share: a
// call that carries no token but comes over a connection whose client certificate names roles
// only, at least one a service (its common name: a role, or roles joined by `+` for a process
// that runs several, deploy/launcher/grpc-tls.ts), is that service calling for its own work. No
// serving process holds a private key that signs tokens others accept; a compromised service can
// act only as itself, and for a caller only with what that caller sent it (acting.ts).
//
// grpc-js hands the verified peer certificate to server interceptors only; this one copies its
// common name into the call's metadata under a key no client can set (any such entry a client sent
// is removed first), where the door (call-middleware.ts) reads it.
import { ServerInterceptingCall, type ServerInterceptor } from '@grpc/grpc-js';
import { ALL_ROLES, SERVICE_ROLES } from '../config.js';
import type { Metadata } from 'nice-grpc';

const PEER_CERTIFICATE_NAME = 'x-expertnet-peer-certificate-name';

/** The server interceptor that records the client certificate's common name (plaintext: none). */
export const peerCertificateInterceptor: ServerInterceptor = (_method, call) =>
  new ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, forward) => {
          metadata.remove(PEER_CERTIFICATE_NAME);
          const name = call.getAuthContext()?.sslPeerCertificate?.subject?.CN;
          if (typeof name === 'string' && name !== '') metadata.set(PEER_CERTIFICATE_NAME, name);
          forward(metadata);
        },
      }),
  });

const serviceRoles = new Set<string>(SERVICE_ROLES);
const roles = new Set<string>(ALL_ROLES);

/**
 * The services a certificate's common name names, when it names roles only and some of them
 * services: `search`, `identity+billing`, or `billing` for `gateway+billing` (a process of edge and
 * service roles, which holds the edge's key anyway). An edge role's, the operator's or an internal
 * team's certificate names none.
 */
export function serviceOfCertificateName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const parts = name.split('+');
  if (!parts.every((p) => roles.has(p))) return undefined;
  const services = parts.filter((p) => serviceRoles.has(p));
  return services.length > 0 ? services.join('+') : undefined;
}

/** The calling service proved by the connection's client certificate (set by the interceptor above). */
export function peerServiceOf(metadata: Metadata): string | undefined {
  const name = metadata.get(PEER_CERTIFICATE_NAME);
  return serviceOfCertificateName(typeof name === 'string' ? name : undefined);
}

/** Whether `name` would be taken for a service: certificates for anyone else must not carry it. */
export function namesServiceRoles(name: string): boolean {
  return serviceOfCertificateName(name) !== undefined;
}
