// The access log, as an operator reads it from `npm start`'s output: one JSON line per request on
// the REST and MCP ports — method, route template, status, duration, request id and the caller's
// key id — for refusals too (a 401's request id can be found), never a secret; the admin port's
// health and readiness probes write none.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecrets } from '../services/kit/secrets.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startMainProcess, type MainProcess } from './helpers/main-process.js';

const secret = liveKey();

interface AccessLine {
  msg: string;
  surface: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  requestId: string;
  key_id?: string;
}

describe('access log (one process, embedded store)', () => {
  let proc: MainProcess;
  beforeAll(async () => {
    const seedFile = join(mkdtempSync(join(tmpdir(), 'en-access-')), 'seed.json');
    writeFileSync(seedFile, JSON.stringify({
      users: [{ id: 'u_reader', email: 'reader@example.org', name: 'Reader' }],
      keys: [{ id: 'k_reader', secret, owner: { user: 'u_reader' }, scopes: ['profile:read', 'search:read'] }],
    }));
    const secrets = generateSecrets();
    proc = await startMainProcess({
      DATA_DIR: 'memory://',
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
      SEED_FILE: seedFile,
      API_KEY_PEPPER: secrets.apiKeyPepper,
      CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
      CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
      OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
      OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
    });
  }, 180_000);
  afterAll(async () => proc?.kill('SIGTERM'));

  /** The access lines written so far for one request id (waits a moment: the line follows the answer). */
  async function linesFor(requestId: string): Promise<AccessLine[]> {
    for (let i = 0; i < 40; i++) {
      const found = proc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as AccessLine)
        .filter((l) => l.msg === 'request' && l.requestId === requestId);
      if (found.length > 0) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    return [];
  }

  it('writes one line for an authenticated REST call: route, status, duration, request id and key id', async () => {
    const res = await request(proc.restUrl, 'GET', '/v1/me', { headers: { ...bearer(secret), 'x-request-id': 'req-access-me' } });
    expect(res.status).toBe(200);
    const lines = await linesFor('req-access-me');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ surface: 'rest', method: 'GET', route: '/v1/me', status: 200, requestId: 'req-access-me', key_id: 'k_reader' });
    expect(lines[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('logs refusals too, by route template (not the raw path), and never the credential', async () => {
    const unauthenticated = await request(proc.restUrl, 'GET', '/v1/communities/c_secret_place/members');
    expect(unauthenticated.status).toBe(401);
    const requestId = unauthenticated.body.error.request_id as string;
    expect(await linesFor(requestId)).toEqual([
      expect.objectContaining({ surface: 'rest', method: 'GET', route: '/v1/communities/:id/members', status: 401, requestId }),
    ]);
    const wrong = await request(proc.restUrl, 'GET', '/v1/nowhere', { headers: bearer(secret) });
    expect(wrong.status).toBe(404);
    expect(await linesFor(wrong.body.error.request_id)).toEqual([expect.objectContaining({ route: 'unmatched', status: 404, key_id: 'k_reader' })]);
    expect(proc.output()).not.toContain(secret);
    expect(proc.output()).not.toContain('c_secret_place');
  });

  it('writes one line for an MCP call', async () => {
    const res = await fetch(proc.mcpUrl, {
      method: 'POST',
      headers: { ...bearer(secret), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'req-access-mcp' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    await res.text();
    expect(await linesFor('req-access-mcp')).toEqual([
      expect.objectContaining({ surface: 'mcp', method: 'POST', route: '/mcp', status: 200, requestId: 'req-access-mcp', key_id: 'k_reader' }),
    ]);
  });

  it('writes nothing for the admin port’s health and readiness probes', async () => {
    const before = proc.output().split('\n').filter((l) => l.includes('"msg":"request"')).length;
    for (const path of ['/healthz', '/readyz']) expect((await fetch(proc.adminUrl + path)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(proc.output().split('\n').filter((l) => l.includes('"msg":"request"')).length).toBe(before);
  });
});
