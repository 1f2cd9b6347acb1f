// Co-located roles call each other in process (services/kit/grpc/in-process.ts): a one-process
// system uses in-process clients for every service, a process that runs only the edge calls them
// over real gRPC, and both ways answer alike — the same responses, and the same refusals (caller
// token, access list, NUL, domain errors) with the same status, code and message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata } from 'nice-grpc';
import { startSystem, type RunningSystem } from '../deploy/launcher/runtime.js';
import { GRPC_ADDRESS_VARIABLES, loadConfig, SERVICE_ROLES } from '../services/kit/config.js';
import { callAs, createServiceClients, type ServiceClients } from '../services/kit/grpc/client.js';
import { readRemoteError } from '../services/kit/grpc/errors.js';
import { createLogger } from '../services/kit/logger.js';
import { ANY_PORT_ENV } from './helpers/any-port-env.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const key = liveKey();
const seed = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' as const }],
  wallets: [{ owner: { user: 'u_ada' }, balance: 250 }],
  keys: [{ id: 'k_ada', secret: key, owner: { user: 'u_ada' }, scopes: ['profile:read'] }],
};

/** How a call ended: its response, or the failure as a gRPC client reads it. */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await call };
  } catch (error) {
    const remote = readRemoteError(error);
    return remote ? { failed: { status: remote.status, code: remote.code, message: remote.message } } : { thrown: String(error) };
  }
}

describe('co-located roles call each other in process', () => {
  let sys: TestSystem;
  let grpc: ServiceClients;
  let edgeOnly: RunningSystem;
  let edgeOnlyUrl: string;

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    grpc = createServiceClients(sys.grpcAddresses);
    // A second process's shape: only the edge here, every service over gRPC at the first one's addresses.
    const env: Record<string, string> = { ...sys.env, ...ANY_PORT_ENV, ROLES: 'gateway' };
    for (const s of SERVICE_ROLES) env[GRPC_ADDRESS_VARIABLES[s]] = sys.grpcAddresses[s];
    delete env.SEED_FILE;
    const config = loadConfig(env);
    edgeOnly = await startSystem(config, createLogger(config.LOG_LEVEL));
    edgeOnlyUrl = edgeOnly.restUrl!;
  });
  afterAll(async () => {
    grpc?.close();
    await edgeOnly?.stop();
    await sys?.stop();
  });

  it('one process calls every service in process; an edge-only process calls them over gRPC', () => {
    for (const s of SERVICE_ROLES) {
      expect(sys.clients.transport[s]).toBe('in-process');
      expect(edgeOnly.clients.transport[s]).toBe('grpc');
    }
  });

  it('GET /v1/me answers the same through either wiring', async () => {
    const here = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(key) });
    const there = await request(edgeOnlyUrl, 'GET', '/v1/me', { headers: bearer(key) });
    expect(here.status).toBe(200);
    expect(there.status).toBe(200);
    const { usage: usageHere, ...restHere } = here.body;
    const { usage: usageThere, ...restThere } = there.body;
    expect(restThere).toEqual(restHere);
    expect(restHere.credit_balance).toBe(250);
    // Each request is counted once, whichever way identity was reached.
    expect(usageThere.requests_today).toBe(usageHere.requests_today + 1);
    const bad = await request(edgeOnlyUrl, 'GET', '/v1/me', { headers: bearer(liveKey()) });
    const badHere = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(liveKey()) });
    expect(bad.status).toBe(401);
    expect(badHere.status).toBe(401);
    const { request_id: _idHere, ...errorHere } = badHere.body.error;
    const { request_id: _idThere, ...errorThere } = bad.body.error;
    expect(errorHere).toEqual(errorThere);
    expect(errorHere.code).toBe('unauthorized');
  });

  it('refusals and answers are the same in process as over gRPC', async () => {
    const asEdge = await callAs(sys.signer, { kind: 'edge' }, 'req-1', 5000);
    const asOperator = await callAs(sys.signer, { kind: 'operator', actor: 'test' }, 'req-2', 5000);
    const cases: Array<(c: ServiceClients) => Promise<unknown>> = [
      // A domain refusal (unknown key) with its ErrorInfo code.
      (c) => c.identity.authenticate({ apiKey: liveKey() }, asEdge),
      // Invalid request: neither credential.
      (c) => c.identity.authenticate({}, asEdge),
      // The access list: the edge may not describe a credential (only a caller may).
      (c) => c.identity.describeCredential({}, asEdge),
      // No caller token at all.
      (c) => c.identity.authenticate({ apiKey: key }, { metadata: Metadata() }),
      // A forged caller token.
      (c) => c.billing.getCallerUsage({}, { metadata: Metadata({ authorization: 'Bearer not.a.token' }) }),
      // NUL in request text, refused before the method runs.
      (c) => c.identity.authenticate({ apiKey: 'svc_live_\u0000' }, asEdge),
      // An answer: the caller the key stands for.
      async (c) => (await c.identity.authenticate({ apiKey: key }, asEdge)).caller,
      async (c) => c.identity.getSeedState({}, asOperator),
    ];
    for (const make of cases) {
      const overGrpc = await outcome(make(grpc));
      const inProcess = await outcome(make(sys.clients));
      expect(inProcess).toEqual(overGrpc);
    }
  });
});
