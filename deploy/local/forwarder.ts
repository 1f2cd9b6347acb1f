// A stable address in front of a process that may be replaced: what a Kubernetes Service is to its
// pods, for the local topology. It listens on a port the OS picks (and keeps it for the topology's
// lifetime) and passes each TCP connection to the current target. A restarted service binds a new
// port of its own choosing; only the target changes, so the processes that call it keep the
// address they were given. With no target (the service is down) a connection is closed at once,
// which a gRPC client sees as UNAVAILABLE, as it would a refused connection.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface Forwarder {
  /** host:port to give callers. */
  address: string;
  /** Where connections go from now on (host:port), or undefined while the target is down. */
  setTarget(target: string | undefined): void;
  close(): Promise<void>;
}

function split(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)) };
}

export async function startForwarder(host = '127.0.0.1'): Promise<Forwarder> {
  let target: { host: string; port: number } | undefined;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };

  const server = createServer((downstream) => {
    track(downstream);
    if (!target) return void downstream.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    // Either side ending ends the other: a caller sees its peer's crash as a dropped connection.
    downstream.on('error', () => upstream.destroy()).on('close', () => upstream.destroy());
    upstream.on('error', () => downstream.destroy()).on('close', () => downstream.destroy());
    downstream.pipe(upstream).pipe(downstream);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    address: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    setTarget(next) {
      target = next ? split(next) : undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
