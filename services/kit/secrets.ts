// Server secrets: the pepper that keys API-key hashes and the Ed25519 pair that signs the
// caller tokens the edge hands to services. They come from the environment; when unset they are
// generated once and kept in DATA_DIR/secrets.json (mode 0600) so that restarts and every process
// sharing the data folder agree. A lost pepper invalidates every key, so the file is never rewritten.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';

export interface ServerSecrets {
  apiKeyPepper: string;
  callerTokenPrivateKey: string;
  callerTokenPublicKey: string;
}

export function generateSecrets(): ServerSecrets {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    apiKeyPepper: randomBytes(32).toString('base64url'),
    callerTokenPrivateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    callerTokenPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function fromEnvironment(config: Config): Partial<ServerSecrets> {
  return {
    apiKeyPepper: config.API_KEY_PEPPER,
    callerTokenPrivateKey: config.CALLER_TOKEN_PRIVATE_KEY,
    callerTokenPublicKey: config.CALLER_TOKEN_PUBLIC_KEY,
  };
}

function loadOrCreateFile(dataDir: string): ServerSecrets {
  if (dataDir.startsWith('memory://')) return generateSecrets();
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  try {
    // 'wx' fails when the file exists, so two processes starting together keep one set.
    writeFileSync(file, JSON.stringify(generateSecrets(), null, 2), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return JSON.parse(readFileSync(file, 'utf8')) as ServerSecrets;
}

export function loadSecrets(config: Config): ServerSecrets {
  const env = fromEnvironment(config);
  if (env.apiKeyPepper && env.callerTokenPrivateKey && env.callerTokenPublicKey) return env as ServerSecrets;
  const stored = loadOrCreateFile(config.DATA_DIR);
  return {
    apiKeyPepper: env.apiKeyPepper ?? stored.apiKeyPepper,
    callerTokenPrivateKey: env.callerTokenPrivateKey ?? stored.callerTokenPrivateKey,
    callerTokenPublicKey: env.callerTokenPublicKey ?? stored.callerTokenPublicKey,
  };
}
