// Server secrets on disk: the OAuth signing pair and the operator's pair live in files of their
// own, so a secrets.json written by an earlier release (without them) is never rewritten and the
// pepper never changes.
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { generateSecrets, loadSecrets } from './secrets.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'en-secrets-'));

describe('loadSecrets', () => {
  it('keeps a secrets.json from an earlier release byte for byte and adds oauth-signing-key.json beside it', () => {
    const dir = dataDir();
    const earlier = loadSecrets(loadConfig({ DATA_DIR: dir, ROLES: 'gateway' }));
    expect(earlier.oauthSigningPrivateKey).toBeUndefined();
    const before = readFileSync(join(dir, 'secrets.json'));
    expect(Object.keys(JSON.parse(before.toString()))).toEqual(['apiKeyPepper', 'callerTokenPrivateKey', 'callerTokenPublicKey']);

    const now = loadSecrets(loadConfig({ DATA_DIR: dir }));
    expect(now.apiKeyPepper).toBe(earlier.apiKeyPepper);
    expect(now.callerTokenPrivateKey).toBe(earlier.callerTokenPrivateKey);
    expect(now.oauthSigningPrivateKey).toContain('PRIVATE KEY');
    expect(now.oauthSigningPublicKey).toContain('PUBLIC KEY');
    expect(readFileSync(join(dir, 'secrets.json')).equals(before)).toBe(true);
    const keyFile = join(dir, 'oauth-signing-key.json');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    // Every later start (and every process sharing the folder) reads the same pair.
    const again = loadSecrets(loadConfig({ DATA_DIR: dir }));
    expect(again.oauthSigningPrivateKey).toBe(now.oauthSigningPrivateKey);
    expect(readdirSync(dir).sort()).toEqual(['oauth-signing-key.json', 'operator-token-key.json', 'secrets.json']);
  });

  it('loads the pair next to environment secrets too, and not at all with an external issuer', () => {
    const env = {
      API_KEY_PEPPER: 'p'.repeat(40),
      CALLER_TOKEN_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----x',
      CALLER_TOKEN_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----x',
      OPERATOR_TOKEN_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----y',
    };
    const dir = dataDir();
    const local = loadSecrets(loadConfig({ ...env, DATA_DIR: dir, ROLES: 'identity' }));
    expect(local.apiKeyPepper).toBe(env.API_KEY_PEPPER);
    expect(local.oauthSigningPublicKey).toContain('PUBLIC KEY');
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);

    const other = dataDir();
    const external = loadSecrets(loadConfig({ ...env, DATA_DIR: other, OAUTH_JWKS_URL: 'https://idp.test/jwks' }));
    expect(external.oauthSigningPrivateKey).toBeUndefined();
    expect(readdirSync(other)).toEqual([]);
  });

  it("adds the operator's pair to a data folder made without it, keeping secrets.json byte for byte", () => {
    const dir = dataDir();
    const earlier = generateSecrets();
    const { apiKeyPepper, callerTokenPrivateKey, callerTokenPublicKey } = earlier;
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ apiKeyPepper, callerTokenPrivateKey, callerTokenPublicKey }), { mode: 0o600 });
    const before = readFileSync(join(dir, 'secrets.json'));
    const now = loadSecrets(loadConfig({ DATA_DIR: dir, ROLES: 'gateway' }));
    expect(now.callerTokenPrivateKey).toBe(callerTokenPrivateKey);
    expect(now.operatorTokenPrivateKey).toContain('PRIVATE KEY');
    expect(now.operatorTokenPrivateKey).not.toBe(callerTokenPrivateKey);
    expect(readFileSync(join(dir, 'secrets.json')).equals(before)).toBe(true);
    expect(statSync(join(dir, 'operator-token-key.json')).mode & 0o777).toBe(0o600);
    // The admin CLI, reading the same folder, signs with the pair the services verify with.
    const admin = loadSecrets(loadConfig({ DATA_DIR: dir, ROLES: 'gateway' }));
    expect(admin.operatorTokenPrivateKey).toBe(now.operatorTokenPrivateKey);
    expect(admin.operatorTokenPublicKey).toBe(now.operatorTokenPublicKey);
  });

  it("takes the operator's public key alone from the environment (a serving process), and derives it from a private key alone", () => {
    const pair = generateSecrets();
    const serving = dataDir();
    const service = loadSecrets(loadConfig({ DATA_DIR: serving, ROLES: 'billing', OPERATOR_TOKEN_PUBLIC_KEY: pair.operatorTokenPublicKey }));
    expect(service.operatorTokenPublicKey).toBe(pair.operatorTokenPublicKey);
    expect(service.operatorTokenPrivateKey).toBeUndefined();
    expect(existsSync(join(serving, 'operator-token-key.json'))).toBe(false);
    const admin = loadSecrets(loadConfig({ DATA_DIR: dataDir(), ROLES: 'gateway', OPERATOR_TOKEN_PRIVATE_KEY: pair.operatorTokenPrivateKey }));
    expect(admin.operatorTokenPrivateKey).toBe(pair.operatorTokenPrivateKey);
    expect(admin.operatorTokenPublicKey).toBe(pair.operatorTokenPublicKey);
  });

  it("takes the edge's public key alone on a service role (it signs no caller token), keeping no secrets.json; refuses it alone on an edge role", () => {
    const pair = generateSecrets();
    const folder = dataDir();
    const env = { DATA_DIR: folder, API_KEY_PEPPER: pair.apiKeyPepper, CALLER_TOKEN_PUBLIC_KEY: pair.callerTokenPublicKey };
    const service = loadSecrets(loadConfig({ ...env, ROLES: 'search' }));
    expect(service.callerTokenPublicKey).toBe(pair.callerTokenPublicKey);
    expect(service.callerTokenPrivateKey).toBeUndefined();
    expect(existsSync(join(folder, 'secrets.json'))).toBe(false);
    for (const role of ['gateway', 'mcp', 'all']) expect(() => loadConfig({ ...env, ROLES: role }), role).toThrow(/CALLER_TOKEN_PRIVATE_KEY: needed by the/);
  });

  it('with OAUTH_SIGNING_KEY_REQUIRED, refuses to start on a missing or empty key file, naming the variable, and makes none', () => {
    for (const content of [undefined, '']) {
      const dir = dataDir();
      if (content !== undefined) writeFileSync(join(dir, 'oauth-signing-key.json'), content);
      const config = loadConfig({ DATA_DIR: dir, ROLES: 'identity', OAUTH_SIGNING_KEY_REQUIRED: 'true' });
      expect(() => loadSecrets(config)).toThrow(ConfigError);
      expect(() => loadSecrets(config)).toThrow(/OAUTH_SIGNING_KEY_REQUIRED is true but .*oauth-signing-key\.json is missing or empty/);
      const file = join(dir, 'oauth-signing-key.json');
      expect(existsSync(file) ? readFileSync(file).length : 0).toBe(0);
    }
    // The shared pair present: it is the one used.
    const dir = dataDir();
    const shared = loadSecrets(loadConfig({ DATA_DIR: dir, ROLES: 'identity' }));
    const replica = loadSecrets(loadConfig({ DATA_DIR: dir, ROLES: 'identity', OAUTH_SIGNING_KEY_REQUIRED: 'true' }));
    expect(replica.oauthSigningPrivateKey).toBe(shared.oauthSigningPrivateKey);
  });

  it('refuses a damaged oauth-signing-key.json rather than replacing it', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'oauth-signing-key.json'), '{}');
    expect(() => loadSecrets(loadConfig({ DATA_DIR: dir }))).toThrow(/does not hold an OAuth signing key pair/);
  });

  it('generates a fresh pair per process in memory mode', () => {
    const a = loadSecrets(loadConfig({ DATA_DIR: 'memory://' }));
    const b = loadSecrets(loadConfig({ DATA_DIR: 'memory://' }));
    expect(a.oauthSigningPrivateKey).toContain('PRIVATE KEY');
    expect(a.oauthSigningPrivateKey).not.toBe(b.oauthSigningPrivateKey);
  });
});
