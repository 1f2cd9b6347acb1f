import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}

describe('logger', () => {
  it('names the role of the process on every line, beside its pid', () => {
    const { stream, lines } = capture();
    const log = createLogger('debug', stream, 'billing');
    log.info('one');
    log.child({ requestId: 'r1' }).debug('two');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((l) => [l.msg, l.role, l.pid])).toEqual([['one', 'billing', process.pid], ['two', 'billing', process.pid]]);
  });

  it('redacts credentials wherever they appear, keeping the rest', () => {
    const { stream, lines } = capture();
    const log = createLogger('info', stream);
    const secret = 'svc_live_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq123456';
    log.info({ req: { headers: { authorization: `Bearer ${secret}`, 'x-api-key': secret, host: 'api' } }, requestId: 'r1' }, 'in');
    log.info({ key: { secret, id: 'k1' }, grant: { token: secret } }, 'minted');
    const text = lines.join('');
    expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
    expect(text).toContain('"requestId":"r1"');
    expect(text).toContain('"id":"k1"');
    expect(text).toContain('"host":"api"');
  });
});
