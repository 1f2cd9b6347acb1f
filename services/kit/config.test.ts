import { describe, expect, it } from 'vitest';
import { ALL_ROLES, ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080, MCP_PORT: 8081, ADMIN_PORT: 9090, HOST: '127.0.0.1', DATA_DIR: './.data',
      CREDIT_ENFORCEMENT: 'off', LOG_LEVEL: 'info', ROLES: [...ALL_ROLES],
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
  });

  it('lists every bad variable at once, not just the first', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', ROLES: 'gateway,teapot', DATABASE_URL: 'mysql://x', CREDIT_ENFORCEMENT: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'ROLES', 'DATABASE_URL', 'CREDIT_ENFORCEMENT']) expect(problems).toContain(name);
  });

  it('reads ROLES as a list, with all meaning every role', () => {
    expect(loadConfig({ ROLES: 'identity, gateway' }).ROLES).toEqual(['identity', 'gateway']);
    expect(loadConfig({ ROLES: 'all' }).ROLES).toEqual([...ALL_ROLES]);
    expect(() => loadConfig({ ROLES: ',' })).toThrow(ConfigError);
  });

  it('reads the work leases (how soon the run or search of a dead process is taken over): 30 s by default, at least 1 s', () => {
    expect(loadConfig({})).toMatchObject({ ENRICHMENT_RUN_LEASE_MS: 30_000, SEARCH_JOB_LEASE_MS: 30_000 });
    expect(loadConfig({ SEARCH_JOB_LEASE_MS: '1500' }).SEARCH_JOB_LEASE_MS).toBe(1500);
    expect(() => loadConfig({ SEARCH_JOB_LEASE_MS: '999' })).toThrow(/SEARCH_JOB_LEASE_MS/);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE as seconds between attempts (unset: the default schedule), refusing anything else naming it', () => {
    expect(loadConfig({}).WEBHOOK_RETRY_SCHEDULE).toBeUndefined();
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1, 2,4' }).WEBHOOK_RETRY_SCHEDULE).toEqual([1, 2, 4]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5' }).WEBHOOK_RETRY_SCHEDULE).toEqual([0.5]);
    for (const bad of ['1,,2', 'soon', '-1', '0', '604801']) expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(loadConfig({}).WEBHOOK_DELIVERY).toBe('on');
    expect(() => loadConfig({ WEBHOOK_DELIVERY: 'no' })).toThrow(/WEBHOOK_DELIVERY/);
  });

  it('treats empty variables as unset and requires the caller-token key pair together', () => {
    expect(loadConfig({ PORT: '' }).PORT).toBe(8080);
    expect(() => loadConfig({ CALLER_TOKEN_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----' })).toThrow(/together/);
  });

  it('refuses a signing key or pepper set but empty (an empty secret), naming each variable', () => {
    for (const name of ['API_KEY_PEPPER', 'CALLER_TOKEN_PRIVATE_KEY', 'CALLER_TOKEN_PUBLIC_KEY', 'OPERATOR_TOKEN_PRIVATE_KEY', 'OPERATOR_TOKEN_PUBLIC_KEY']) {
      expect(() => loadConfig({ [name]: '' }), name).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: ' \n' }), name).toThrow(new RegExp(`${name} is set but empty`));
    }
    expect(() => loadConfig({ OPERATOR_TOKEN_PUBLIC_KEY: 'not a key' })).toThrow(/OPERATOR_TOKEN_PUBLIC_KEY: expected an SPKI PEM/);
  });

  it('takes the settings OpenID Connect provider as issuer and client id together, over https unless on loopback', () => {
    expect(loadConfig({})).toMatchObject({ SETTINGS_OIDC_NAME: 'your identity provider' });
    expect(loadConfig({ SETTINGS_OIDC_ISSUER: 'https://sso.example.org', SETTINGS_OIDC_CLIENT_ID: 'settings' })).toMatchObject({
      SETTINGS_OIDC_ISSUER: 'https://sso.example.org', SETTINGS_OIDC_CLIENT_ID: 'settings',
    });
    expect(loadConfig({ SETTINGS_OIDC_ISSUER: 'http://127.0.0.1:5556/dex', SETTINGS_OIDC_CLIENT_ID: 'settings' }).SETTINGS_OIDC_ISSUER)
      .toBe('http://127.0.0.1:5556/dex');
    expect(() => loadConfig({ SETTINGS_OIDC_ISSUER: 'https://sso.example.org' })).toThrow(/SETTINGS_OIDC_ISSUER and SETTINGS_OIDC_CLIENT_ID must be set together/);
    expect(() => loadConfig({ SETTINGS_OIDC_CLIENT_SECRET: 'x' })).toThrow(/SETTINGS_OIDC_CLIENT_SECRET needs SETTINGS_OIDC_ISSUER/);
    expect(() => loadConfig({ SETTINGS_OIDC_ISSUER: 'http://sso.example.org', SETTINGS_OIDC_CLIENT_ID: 'settings' }))
      .toThrow(/SETTINGS_OIDC_ISSUER: expected an https URL/);
  });
});
