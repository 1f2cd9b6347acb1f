// Asks a service's standard gRPC health endpoint (grpc.health.v1) whether it serves.
import { createChannel, createClient } from 'nice-grpc';
import { HealthDefinition } from 'nice-grpc-server-health';

// grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING
const SERVING = 1;

export async function checkGrpcHealth(address: string, service = '', timeoutMs = 2000): Promise<boolean> {
  // A channel of its own, on subchannels of its own: grpc-js shares connections (and their
  // reconnect backoff) among channels to one address, and a probe must see the service as it is now.
  const channel = createChannel(address, undefined, { 'grpc.use_local_subchannel_pool': 1 });
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
