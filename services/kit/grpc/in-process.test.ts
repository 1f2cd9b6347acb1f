// The in-process client's own behaviour, on a service registration of its own (a real generated
// definition; the method bodies are the test's): the caller as the calling code names it, a token
// when only metadata is given, and a deadline that fails the call and aborts the method's signal.
import { Metadata, Status } from 'nice-grpc';
import { describe, expect, it } from 'vitest';
import { BillingServiceDefinition } from '../../../proto/gen/expertnet/billing/v1/billing_service.js';
import { createLogger } from '../logger.js';
import { generateSecrets } from '../secrets.js';
import { callMiddleware, type ServiceRegistration } from './call-middleware.js';
import { callAs } from './client.js';
import { TokenSigner, TokenVerifier } from './caller-token.js';
import { readRemoteError } from './errors.js';
import { inProcessClient } from './in-process.js';

const secrets = generateSecrets();
const signer = new TokenSigner(secrets);
const verifier = new TokenVerifier(secrets);

function billingWith(implementation: ServiceRegistration<typeof BillingServiceDefinition>['implementation']) {
  const access = Object.fromEntries(Object.keys(BillingServiceDefinition.methods).map((m) => [m, ['operator']])) as unknown as ServiceRegistration<typeof BillingServiceDefinition>['access'];
  const registration: ServiceRegistration<typeof BillingServiceDefinition> = { definition: BillingServiceDefinition, implementation, access };
  return inProcessClient(registration, callMiddleware({ services: [registration], verifier, logger: createLogger('silent') }));
}

const failure = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => readRemoteError(error));

describe('in-process client', () => {
  it('gives the method the caller the calling code names, and refuses one its access list does not name', async () => {
    let seen: unknown;
    const client = billingWith({
      async getCallerUsage(_request, ctx) {
        seen = ctx.principal;
        return { creditBalance: 7, creditsSpentThisMonth: 0 };
      },
    });
    const answer = await client.getCallerUsage({}, await callAs(signer, { kind: 'operator', actor: 'ops' }, 'req-1', 5000));
    expect(answer.creditBalance).toBe(7);
    expect(seen).toEqual({ kind: 'operator', actor: 'ops' });
    expect(await failure(client.getCallerUsage({}, await callAs(signer, { kind: 'edge' }, 'req-2', 5000)))).toMatchObject({ status: Status.PERMISSION_DENIED });
  });

  it('without a named caller, needs a valid caller token in the metadata', async () => {
    const client = billingWith({ getCallerUsage: async () => ({ creditBalance: 1, creditsSpentThisMonth: 0 }) });
    expect(await failure(client.getCallerUsage({}, { metadata: Metadata() }))).toMatchObject({ status: Status.UNAUTHENTICATED });
    expect(await failure(client.getCallerUsage({}, { metadata: Metadata({ authorization: 'Bearer not.a.token' }) }))).toMatchObject({ status: Status.UNAUTHENTICATED });
    const token = await signer.sign({ kind: 'operator', actor: 'ops' });
    expect((await client.getCallerUsage({}, { metadata: Metadata({ authorization: `Bearer ${token}` }) })).creditBalance).toBe(1);
  });

  it('fails a call past its deadline with DEADLINE_EXCEEDED and aborts the signal the method holds', async () => {
    let aborted: Promise<boolean> | undefined;
    const client = billingWith({
      getCallerUsage(_request, ctx) {
        aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(true)));
        return new Promise(() => {}); // never answers
      },
    });
    const options = await callAs(signer, { kind: 'operator', actor: 'ops' }, 'req-3', 50);
    expect(await failure(client.getCallerUsage({}, options))).toMatchObject({ status: Status.DEADLINE_EXCEEDED });
    expect(await aborted).toBe(true);
  });

  it('aborts the method’s signal when the caller’s own signal aborts, also when the method reads it only afterwards', async () => {
    const caller = new AbortController();
    let readLate: (() => boolean) | undefined;
    const client = billingWith({
      getCallerUsage(_request, ctx) {
        readLate = () => ctx.signal.aborted;
        return new Promise(() => {});
      },
    });
    const call = failure(client.getCallerUsage({}, { ...(await callAs(signer, { kind: 'operator', actor: 'ops' }, 'req-4', 200)), signal: caller.signal }));
    await new Promise((r) => setTimeout(r, 10));
    expect(readLate!()).toBe(false);
    caller.abort();
    expect(readLate!()).toBe(true);
    await call;
  });
});
