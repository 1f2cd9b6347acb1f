// The webhook URL check's answers when the resolver, not the URL, is at fault: a lookup that never
// answers or fails for now is UNAVAILABLE with the `unavailable` code (the edge's 503 with
// Retry-After, gateway/core/api-error.ts) once the lookup's time is up, never a hang; a name with
// no address is the URL's fault (400). The answers over HTTP: test/webhook-endpoint-urls.test.ts.
import { Status } from 'nice-grpc';
import { ErrorInfo, RichServerError } from 'nice-grpc-error-details';
import { describe, expect, it } from 'vitest';
import { checkedWebhookUrl } from './webhook-url.js';

/** The API code and gRPC status a refusal carries. */
async function refusalOf(promise: Promise<unknown>): Promise<{ status: Status; code: string | undefined; message: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(RichServerError);
  const rich = error as RichServerError;
  const info = rich.extra.find((d) => d.$type === 'google.rpc.ErrorInfo') as ErrorInfo | undefined;
  return { status: rich.code, code: info?.reason, message: rich.details };
}

const failing = (code: string) => async () => {
  throw Object.assign(new Error(code), { code });
};

describe('checkedWebhookUrl', () => {
  it('answers unavailable when the lookup does not answer in time', async () => {
    const stalled = () => new Promise<never>(() => {});
    const refusal = await refusalOf(checkedWebhookUrl('https://hooks.example.org/x', { allowPrivate: false, lookup: stalled, lookupTimeoutMs: 50 }));
    expect(refusal).toEqual({ status: Status.UNAVAILABLE, code: 'unavailable', message: 'url: the host hooks.example.org could not be resolved now (ETIMEOUT); retry shortly' });
  });

  it('answers unavailable for a resolver failing for now, and 400 for a name without an address', async () => {
    expect(await refusalOf(checkedWebhookUrl('https://hooks.example.org/x', { allowPrivate: false, lookup: failing('EAI_AGAIN') }))).toMatchObject({
      status: Status.UNAVAILABLE,
      code: 'unavailable',
    });
    for (const code of ['ENOTFOUND', 'ENODATA']) {
      expect(await refusalOf(checkedWebhookUrl('https://hooks.example.org/x', { allowPrivate: false, lookup: failing(code) }))).toEqual({
        status: Status.INVALID_ARGUMENT,
        code: 'invalid_request',
        message: 'url: the host hooks.example.org does not resolve',
      });
    }
    const none = async () => [];
    expect((await refusalOf(checkedWebhookUrl('https://hooks.example.org/x', { allowPrivate: false, lookup: none }))).message).toBe('url: the host hooks.example.org does not resolve');
  });

  it('refuses a name when any of its addresses is not public, and keeps one resolving to public addresses only', async () => {
    const mixed = async () => [{ address: '93.184.216.34' }, { address: '10.0.0.7' }];
    expect((await refusalOf(checkedWebhookUrl('https://hooks.example.org/x', { allowPrivate: false, lookup: mixed }))).message).toBe(
      'url: the host hooks.example.org resolves to 10.0.0.7, which is not a public address',
    );
    const pub = async () => [{ address: '93.184.216.34' }, { address: '2606:2800:220:1:248:1893:25c8:1946' }];
    expect(await checkedWebhookUrl('https://hooks.example.org/x', { allowPrivate: false, lookup: pub })).toBe('https://hooks.example.org/x');
  });
});
