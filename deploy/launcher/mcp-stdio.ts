// `npm run mcp:stdio`: the MCP surface over stdio, for a local client that spawns it. The credential
// is EXPERTNET_API_KEY (an API key, or an OAuth access token); the process reaches the services over
// gRPC exactly like the admin CLI (the launcher's wiring: configured addresses, server secrets), so
// it must run where the system's configuration is (same environment / DATA_DIR as `npm start`).
//
// The credential is checked once at start (a bad one exits at once with a message on stderr) and
// then again on every tool call, like every REST request: revoking the key takes effect on the
// next call. An access token must be one for the MCP resource (its `aud`, as over HTTP): this is the
// same MCP server, reached another way. stdout carries only the protocol; diagnostics go to stderr.
import { pino } from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../../services/kit/config.js';
import { createLogger } from '../../services/kit/logger.js';
import { mcpResourceUrlOf } from '../../services/kit/mcp-resource.js';
import { connectRedis, redisBoundsOf } from '../../services/kit/redis.js';
import { fromRemote } from '../../gateway/core/api-error.js';
import { credentialOf } from '../../gateway/core/credentials.js';
import { buildMcpServer, freshRequestId } from '../../gateway/mcp/tools.js';
import { refuseInvalidParams } from '../../gateway/mcp/invalid-params.js';
import { connectToServices, edgeLimiter, edgeOver } from './wiring.js';

async function main(): Promise<void> {
  const secret = process.env.EXPERTNET_API_KEY?.trim();
  if (!secret) {
    process.stderr.write('EXPERTNET_API_KEY is not set: give the API key (or OAuth access token) the MCP tools act with\n');
    process.exit(2);
  }
  const config = loadConfig();
  const credential = credentialOf(secret, mcpResourceUrlOf(config));
  const { clients, signer } = connectToServices(config, undefined, 'mcp-stdio');
  const edge = edgeOver(config, clients, signer);
  // Logs to stderr (fd 2): stdout is the protocol.
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, pino.destination(2));
  // With REDIS_URL the limits are shared with the gateway replicas; otherwise kept in this process.
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL, { bounds: redisBoundsOf(config) }) : undefined;
  const limiter = edgeLimiter(config, redis);

  try {
    await edge.authenticate(credential, freshRequestId());
  } catch (error) {
    const e = fromRemote(error);
    process.stderr.write(`EXPERTNET_API_KEY was refused: ${e.code}: ${e.message}\n`);
    clients.close();
    redis?.disconnect();
    process.exit(1);
  }

  const server = buildMcpServer({
    edge,
    limiter,
    logger,
    requestId: freshRequestId,
    caller: (requestId) => edge.authenticate(credential, requestId),
  });
  const transport = new StdioServerTransport();
  const shutdown = () => {
    clients.close();
    redis?.disconnect();
    process.exit(0);
  };
  transport.onclose = shutdown;
  process.stdin.on('end', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  await server.connect(transport);
  refuseInvalidParams(transport);
}

main().catch((error: unknown) => {
  process.stderr.write(`mcp:stdio failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
