// The request log's buffer on the edge: recording never waits, whatever identity does. A send that
// never answers fills the buffer to its bound and every request past it is dropped and counted; a
// refused batch is dropped and counted; a full batch leaves at once, at most 1,000 a call; stop
// sends what waits.
import { describe, expect, it } from 'vitest';
import { CredentialKind } from '../../proto/gen/expertnet/common/v1/common.js';
import type { FinishedRequest } from '../../proto/gen/expertnet/identity/v1/request_log.js';
import { textProblem } from './request-text.js';
import { createRequestLogReporter, type RequestLogEntry } from './request-log.js';

const entry = (n: number): RequestLogEntry => ({
  caller: { credentialId: 'k_1', credential: CredentialKind.CREDENTIAL_KIND_API_KEY },
  surface: 'rest', method: 'GET', url: `/v1/me?q=secret-${n}`, status: 200, durationMs: 12.345, requestId: `r${n}`,
});

describe('request log reporter', () => {
  it('drops past its bound instead of waiting while identity does not answer', () => {
    const sent: FinishedRequest[][] = [];
    const reporter = createRequestLogReporter((batch) => {
      sent.push(batch);
      return new Promise(() => undefined);
    }, { capacity: 5, flushAt: 3, intervalMs: 60_000 });
    // record answers at once (nothing to await) while the send it started never settles.
    for (let i = 0; i < 20; i++) expect(reporter.record(entry(i))).toBeUndefined();
    // The first 3 left in a send that hangs; 5 more wait; the other 12 were dropped.
    expect(sent.map((b) => b.length)).toEqual([3]);
    expect(reporter.counts()).toEqual({ waiting: 5, dropped: 12 });
  });

  it('counts a batch identity refused as dropped, and keeps no query string', async () => {
    const reporter = createRequestLogReporter(async () => {
      throw new Error('identity is away');
    }, { intervalMs: 60_000, flushAt: 2 });
    reporter.record(entry(1));
    reporter.record(entry(2));
    await reporter.stop();
    expect(reporter.counts()).toEqual({ waiting: 0, dropped: 2 });

    const sent: FinishedRequest[] = [];
    const ok = createRequestLogReporter(async (batch) => void sent.push(...batch), { intervalMs: 60_000 });
    ok.record(entry(3));
    ok.record({ ...entry(4), caller: { credentialId: '', credential: CredentialKind.CREDENTIAL_KIND_UNSPECIFIED } });
    await ok.stop();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ path: '/v1/me', status: 200, latencyMs: 12.3, requestId: 'r3', credentialId: 'k_1' });
  });

  it('sends at most 1,000 a call, and everything waiting at stop', async () => {
    const sizes: number[] = [];
    const reporter = createRequestLogReporter(async (batch) => void sizes.push(batch.length), { intervalMs: 60_000, flushAt: 5_000 });
    for (let i = 0; i < 2_500; i++) reporter.record(entry(i));
    await reporter.stop();
    expect(sizes).toEqual([1000, 1000, 500]);
  });

  it('sends a tool name cut inside a surrogate pair, or holding a NUL, as text identity’s door accepts', async () => {
    const sent: FinishedRequest[] = [];
    const reporter = createRequestLogReporter(async (batch) => void sent.push(...batch), { intervalMs: 60_000 });
    reporter.record({ ...entry(1), surface: 'mcp', tool: `${'t'.repeat(63)}😀` });
    reporter.record({ ...entry(2), surface: 'mcp', tool: 'who\0ami\ud800' });
    await reporter.stop();
    expect(sent.map((r) => r.tool)).toEqual([`${'t'.repeat(63)}\ufffd`, 'whoami\ufffd']);
    for (const request of sent) expect(textProblem(request.tool)).toBeUndefined();
  });
});
