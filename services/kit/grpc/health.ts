// Asks a service's standard gRPC health endpoint (grpc.health.v1) whether it serves.
import { createChannel, createClient } from 'nice-grpc';
import { HealthDefinition } from 'nice-grpc-server-health';
import { channelCredentialsOf, tlsChannelOptions, type GrpcTls } from '../tls.js';

// grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING
const SERVING = 1;

/** `tls`: the caller's certificate and CA, when the service requires mutual TLS. */
export async function checkGrpcHealth(address: string, service = '', timeoutMs = 2000, tls?: GrpcTls): Promise<boolean> {
  // A channel of its own, on subchannels of its own: grpc-js shares connections (and their
  // reconnect backoff) among channels to one address, and a probe must see the service as it is now.
  const channel = createChannel(address, channelCredentialsOf(tls), { 'grpc.use_local_subchannel_pool': 1, ...tlsChannelOptions(address, tls) });
  try {
    const client = createClient(HealthDefinition, channel);
    const response = await client.check({ service }, { signal: AbortSignal.timeout(timeoutMs) });
    return response.status === SERVING;
  } catch {
    return false;
  } finally {
    channel.close();
  }
}
