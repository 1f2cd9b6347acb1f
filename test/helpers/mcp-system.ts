// A running system with an MCP server on an edge built from its clients, the way the runtime builds
// it. The server's resource URI names its port and identity must know it (the audience of MCP
// access tokens) before the system starts, so the socket is bound first (port 0) and handed over.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEdge } from '../../gateway/core/edge.js';
import { MemoryRateLimiter } from '../../services/kit/rate-limit/memory-limiter.js';
import { createMcpHttpServer, startMcpHttpServer, type RunningMcpServer } from '../../gateway/mcp/server.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { startTestSystem, type TestSystem } from './test-system.js';

export interface McpSystem {
  sys: TestSystem;
  mcp: RunningMcpServer;
  stop(): Promise<void>;
}

/** `idempotency`: the MCP server keeps idempotency records in the system's store; `env`: more configuration. */
export async function startMcpSystem(seed: SeedInput, options: { idempotency?: boolean; env?: Record<string, string> } = {}): Promise<McpSystem> {
  const listener: Server = createMcpHttpServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  let sys: TestSystem;
  try {
    sys = await startTestSystem({ seed, env: { ...options.env, MCP_RESOURCE_URL: `http://127.0.0.1:${port}/mcp` } });
  } catch (error) {
    listener.close();
    throw error;
  }
  const mcp = await startMcpHttpServer({
    edge: createEdge({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }),
    limiter: new MemoryRateLimiter(),
    host: '127.0.0.1',
    port,
    server: listener,
    authorizationServers: ['http://127.0.0.1:8080/oauth'],
    ...(options.idempotency && sys.db && { db: sys.db }),
  });
  return {
    sys,
    mcp,
    async stop() {
      await mcp.close();
      await sys.stop();
    },
  };
}
