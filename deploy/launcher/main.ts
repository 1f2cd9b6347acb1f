// The one entry point: `npm start`. ROLES picks what this process runs (default: everything).
// Tracing starts first (when OTEL_* variables ask for it): its ESM loader hook and instrumentations
// patch only modules loaded after them, so the runtime — pg, ioredis, grpc-js, fastify — is
// imported afterwards. docs/OBSERVABILITY.md.
import { startTelemetry } from '../../services/kit/telemetry.js';

const telemetry = await startTelemetry();
const { ConfigError, loadConfig } = await import('../../services/kit/config.js');
const { createLogger } = await import('../../services/kit/logger.js');
const { startSystem } = await import('./runtime.js');
const { formatListenReport } = await import('./listen-report.js');
const { ALL_ROLES, SERVICE_ROLES } = await import('../../services/kit/config.js');
const { removeRunningFile, writeRunningFile } = await import('./running-file.js');
const { wayBackIn } = await import('./way-back-in.js');

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  // Every line names the process's role: `all` in one process, else the roles it runs (ROLES).
  const role = config.ROLES.length === ALL_ROLES.length ? 'all' : config.ROLES.join(',');
  const logger = createLogger(config.LOG_LEVEL, undefined, role);
  const system = await startSystem(config, logger);

  const lines = [`Expert Network API (roles: ${config.ROLES.join(',')})`];
  if (system.restUrl) lines.push(`REST API:  ${system.restUrl}/v1`);
  if (system.mcpUrl) lines.push(`MCP:       ${system.mcpUrl}`);
  if (system.settingsUrl) lines.push(`Settings:  ${system.settingsUrl}`);
  lines.push(`Admin:     ${system.adminUrl}  (/healthz, /readyz, /metrics)`);
  lines.push(system.grpcTransport);
  for (const [id, secret] of Object.entries(system.mintedKeys)) {
    lines.push(`API key ${id} (shown once, keep it): ${secret}`);
    if (id === 'key_demo') lines.push(`Try it:    curl -H "Authorization: Bearer ${secret}" ${system.restUrl}/v1/me`);
  }
  for (const [userId, link] of Object.entries(system.signInLinks)) {
    lines.push(`Sign in to the settings as ${userId} (one-time link, until ${link.expiresAt}): ${link.url}`);
  }
  // A later start shows no secret and no link (they are shown once): it says how to get new ones.
  if (system.settingsUrl && system.signer && Object.keys(system.signInLinks).length === 0) lines.push(...(await wayBackIn(config, { clients: system.clients, signer: system.signer })));
  // The ports this process bound, in one machine-readable line (any of them may have been 0).
  const grpc = Object.fromEntries(SERVICE_ROLES.filter((s) => config.ROLES.includes(s)).map((s) => [s, system.grpcAddresses[s]]));
  const listening = { admin: system.adminUrl!, rest: system.restUrl, mcp: system.mcpUrl, settings: system.settingsUrl, grpc };
  lines.push(formatListenReport(listening));
  // A process serving every service is what the admin CLI reaches from the same DATA_DIR
  // (running-file.ts); a process of a multi-process topology is given its addresses instead.
  const runsEveryService = SERVICE_ROLES.every((s) => config.ROLES.includes(s));
  if (runsEveryService) {
    const settingsPublicUrl = config.SETTINGS_PUBLIC_URL?.replace(/\/+$/, '') ?? system.settingsUrl;
    writeRunningFile(config.DATA_DIR, { pid: process.pid, startedAt: new Date().toISOString(), listening, grpcTls: system.grpcTls, ...(settingsPublicUrl && { settingsPublicUrl }) });
  }
  console.log(lines.join('\n'));

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Gone first: from now on the CLI says nothing runs rather than calling a system going away.
    if (runsEveryService) removeRunningFile(config.DATA_DIR, process.pid);
    system.stop().then(
      () => telemetry.shutdown().then(() => process.exit(0)),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
