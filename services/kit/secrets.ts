// Server secrets: the pepper that keys API-key hashes, the Ed25519 pair that signs the caller
// tokens the edge hands to services, and the Ed25519 pair with which the one-process (local) OAuth
// issuer signs access tokens. The first three come from the environment; when unset they are
// generated once and kept in DATA_DIR/secrets.json (mode 0600) so that restarts and every process
// sharing the data folder agree. A lost pepper invalidates every key, so that file is never rewritten.
//
// The OAuth signing pair lives in a file of its own, DATA_DIR/oauth-signing-key.json (mode 0600):
// a secrets.json written by an earlier release lacks it, and rewriting secrets.json to add it would
// put the pepper at risk (a crash mid-write, two processes racing). A separate file is created once,
// complete or not at all, and never touches the pepper; it can also be rotated on its own (delete
// it and restart: outstanding access tokens, which live an hour at most, stop verifying).
//
// The operator's Ed25519 pair (caller-token.ts: it alone signs operator principals) comes from
// OPERATOR_TOKEN_PUBLIC_KEY / OPERATOR_TOKEN_PRIVATE_KEY; a deployment gives the services only the
// public key and the admin tooling the private one. With neither set it lives in a file of its own,
// DATA_DIR/operator-token-key.json (mode 0600), made once like the OAuth pair: a data folder made
// before the pair existed gets it on its next start, and the admin CLI finds it through DATA_DIR.
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from './config.js';

export interface ServerSecrets {
  apiKeyPepper: string;
  /** The edge's signing key: absent on a service role given only the public key (it signs nothing). */
  callerTokenPrivateKey?: string;
  callerTokenPublicKey: string;
  /**
   * Ed25519 pair (PKCS#8 / SPKI PEM) of the local OAuth issuer. Loaded only by a process that runs
   * the identity role without an external issuer (OAUTH_JWKS_URL unset); absent otherwise.
   */
  oauthSigningPrivateKey?: string;
  oauthSigningPublicKey?: string;
  /** The operator's pair: the public key everywhere, the private key only where the operator acts. */
  operatorTokenPrivateKey?: string;
  operatorTokenPublicKey: string;
}

type BaseSecrets = Pick<ServerSecrets, 'apiKeyPepper' | 'callerTokenPublicKey'> & { callerTokenPrivateKey: string };
type OAuthSigningKey = Required<Pick<ServerSecrets, 'oauthSigningPrivateKey' | 'oauthSigningPublicKey'>>;
type OperatorKey = Pick<ServerSecrets, 'operatorTokenPrivateKey' | 'operatorTokenPublicKey'>;

function ed25519Pair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function generateBaseSecrets(): BaseSecrets {
  const caller = ed25519Pair();
  return {
    apiKeyPepper: randomBytes(32).toString('base64url'),
    callerTokenPrivateKey: caller.privateKey,
    callerTokenPublicKey: caller.publicKey,
  };
}

export function generateOAuthSigningKey(): OAuthSigningKey {
  const pair = ed25519Pair();
  return { oauthSigningPrivateKey: pair.privateKey, oauthSigningPublicKey: pair.publicKey };
}

function generateOperatorKey(): Required<OperatorKey> {
  const pair = ed25519Pair();
  return { operatorTokenPrivateKey: pair.privateKey, operatorTokenPublicKey: pair.publicKey };
}

/** A complete set, every field present (tests and the local topology launcher). */
export function generateSecrets(): Required<ServerSecrets> {
  return { ...generateBaseSecrets(), ...generateOAuthSigningKey(), ...generateOperatorKey() };
}

function fromEnvironment(config: Config): Partial<ServerSecrets> {
  return {
    apiKeyPepper: config.API_KEY_PEPPER,
    callerTokenPrivateKey: config.CALLER_TOKEN_PRIVATE_KEY,
    callerTokenPublicKey: config.CALLER_TOKEN_PUBLIC_KEY,
  };
}

/**
 * Creates `file` with `content` unless it exists, then returns what the file holds. The content is
 * written to a temporary file first and linked into place (link fails when the target exists), so
 * a process starting at the same moment never reads a half-written file, and an existing file is
 * never changed.
 */
function createOnceAndRead(file: string, content: string): string {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readFileSync(file, 'utf8');
}

function loadOrCreateFile(dataDir: string): BaseSecrets {
  if (dataDir.startsWith('memory://')) return generateBaseSecrets();
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  try {
    // 'wx' fails when the file exists, so two processes starting together keep one set.
    writeFileSync(file, JSON.stringify(generateBaseSecrets(), null, 2), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return JSON.parse(readFileSync(file, 'utf8')) as BaseSecrets;
}

/**
 * The local OAuth issuer's pair: per process in memory mode, else DATA_DIR/oauth-signing-key.json.
 * `required`: the file must be there already (OAUTH_SIGNING_KEY_REQUIRED): a replica that made a
 * pair of its own would sign tokens its siblings refuse, so start-up fails instead, saying why.
 */
export function loadOAuthSigningKey(dataDir: string, required = false): OAuthSigningKey {
  if (dataDir.startsWith('memory://')) return generateOAuthSigningKey();
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'oauth-signing-key.json');
  if (required && !(existsSync(file) && statSync(file).size > 0)) {
    throw new ConfigError([
      `OAUTH_SIGNING_KEY_REQUIRED is true but ${file} is missing or empty: every identity replica must sign with one shared key. ` +
        'Fill the OAuth signing-key secret (key oauth-signing-key.json, the JSON an identity process writes to DATA_DIR), or set OAUTH_JWKS_URL to use an external issuer.',
    ]);
  }
  const stored = JSON.parse(createOnceAndRead(file, JSON.stringify(generateOAuthSigningKey(), null, 2))) as Partial<OAuthSigningKey>;
  if (!stored.oauthSigningPrivateKey?.includes('PRIVATE KEY') || !stored.oauthSigningPublicKey?.includes('PUBLIC KEY')) {
    throw new Error(`${file} does not hold an OAuth signing key pair; delete it to generate a new one`);
  }
  return { oauthSigningPrivateKey: stored.oauthSigningPrivateKey, oauthSigningPublicKey: stored.oauthSigningPublicKey };
}

/**
 * The operator's pair: from the environment (the public key alone on a serving process; the public
 * key is derived when only the private one is given), else DATA_DIR/operator-token-key.json.
 */
function loadOperatorKey(config: Config): OperatorKey {
  const privateKey = config.OPERATOR_TOKEN_PRIVATE_KEY;
  if (config.OPERATOR_TOKEN_PUBLIC_KEY || privateKey) {
    const publicKey = config.OPERATOR_TOKEN_PUBLIC_KEY ?? createPublicKey(privateKey!).export({ type: 'spki', format: 'pem' }).toString();
    return { operatorTokenPublicKey: publicKey, ...(privateKey && { operatorTokenPrivateKey: privateKey }) };
  }
  if (config.DATA_DIR.startsWith('memory://')) return generateOperatorKey();
  mkdirSync(config.DATA_DIR, { recursive: true });
  const file = join(config.DATA_DIR, 'operator-token-key.json');
  const stored = JSON.parse(createOnceAndRead(file, JSON.stringify(generateOperatorKey(), null, 2))) as Partial<OperatorKey>;
  if (!stored.operatorTokenPrivateKey?.includes('PRIVATE KEY') || !stored.operatorTokenPublicKey?.includes('PUBLIC KEY')) {
    throw new Error(`${file} does not hold the operator's key pair; delete it to generate a new one`);
  }
  return { operatorTokenPrivateKey: stored.operatorTokenPrivateKey, operatorTokenPublicKey: stored.operatorTokenPublicKey };
}

/** Whether this process needs the local OAuth issuer's pair: it runs identity with no external issuer. */
function needsLocalOAuthKey(config: Config): boolean {
  return config.ROLES.includes('identity') && !config.OAUTH_JWKS_URL;
}

export function loadSecrets(config: Config): ServerSecrets {
  const env = fromEnvironment(config);
  const oauth = needsLocalOAuthKey(config) ? loadOAuthSigningKey(config.DATA_DIR, config.OAUTH_SIGNING_KEY_REQUIRED) : {};
  const operator = loadOperatorKey(config);
  // From the environment whole; a service role may be given the public key alone (config.ts).
  if (env.apiKeyPepper && env.callerTokenPublicKey) {
    return { apiKeyPepper: env.apiKeyPepper, callerTokenPublicKey: env.callerTokenPublicKey, ...(env.callerTokenPrivateKey && { callerTokenPrivateKey: env.callerTokenPrivateKey }), ...oauth, ...operator };
  }
  const stored = loadOrCreateFile(config.DATA_DIR);
  return {
    apiKeyPepper: env.apiKeyPepper ?? stored.apiKeyPepper,
    callerTokenPrivateKey: env.callerTokenPrivateKey ?? stored.callerTokenPrivateKey,
    callerTokenPublicKey: env.callerTokenPublicKey ?? stored.callerTokenPublicKey,
    ...oauth,
    ...operator,
  };
}
