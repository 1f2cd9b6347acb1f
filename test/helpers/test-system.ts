// Starts the whole system in this process, as `npm start` does — every service on its own gRPC
// port, the co-located roles calling each other in process — on ports the OS picks, over a throwaway
// store that starts migrated (a copy of one migrated once: store-templates.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GRPC_ADDRESS_VARIABLES, loadConfig, SERVICE_ROLES } from '../../services/kit/config.js';
import { createLogger, type Logger } from '../../services/kit/logger.js';
import { generateSecrets, type ServerSecrets } from '../../services/kit/secrets.js';
import { startSystem, type RunningSystem, type SystemHooks } from '../../deploy/launcher/runtime.js';
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { freshPostgresDatabase, type StoreName } from './stores.js';
import { openMigratedPglite } from './store-templates.js';
import { ANY_PORT_ENV } from './any-port-env.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';

export interface TestSystem extends RunningSystem {
  restUrl: string;
  adminUrl: string;
  /** Every role runs here, the edge's too: its signer is always there. */
  signer: TokenSigner;
  secrets: Required<ServerSecrets>;
  /** Environment that points a child process (the admin CLI) at this system. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startTestSystem(
  options: { store?: StoreName; seed?: SeedInput; env?: Record<string, string>; hooks?: SystemHooks; logger?: Logger } = {},
): Promise<TestSystem> {
  const secrets = generateSecrets();
  const database = options.store === 'postgres' ? await freshPostgresDatabase({ migrated: true }) : undefined;
  const env: Record<string, string> = {
    ...ANY_PORT_ENV,
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'silent',
    API_KEY_PEPPER: secrets.apiKeyPepper,
    CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
    CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
    OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
    OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
    ...options.env,
  };
  if (database) env.DATABASE_URL = database.url;
  if (options.seed) {
    const file = join(mkdtempSync(join(tmpdir(), 'en-seed-')), 'seed.json');
    writeFileSync(file, JSON.stringify(options.seed));
    env.SEED_FILE = file;
  }
  const config = loadConfig(env);
  // The embedded store in memory is a copy of one migrated once (store-templates.ts); the system
  // still checks every migration at start, and finds them applied.
  const inMemory = !config.DATABASE_URL && config.DATA_DIR.startsWith('memory://');
  const hooks: SystemHooks = { ...(inMemory && { openDatabase: openMigratedPglite }), ...options.hooks };
  const system = await startSystem(config, options.logger ?? createLogger(config.LOG_LEVEL), hooks);
  for (const s of SERVICE_ROLES) env[GRPC_ADDRESS_VARIABLES[s]] = system.grpcAddresses[s];
  return {
    ...system,
    restUrl: system.restUrl!,
    adminUrl: system.adminUrl!,
    signer: system.signer!,
    secrets,
    env,
    async stop() {
      await system.stop();
      await database?.drop();
    },
  };
}
