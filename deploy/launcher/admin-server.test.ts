import { describe, expect, it } from 'vitest';
import { runChecks } from './admin-server.js';

describe('readiness checks', () => {
  it('answer within their bound: a check that hangs (a frozen Redis) counts as failing and is named', async () => {
    // The hanging check never settles: an answer at all is the bound at work.
    const result = await runChecks(
      {
        database: async () => true,
        redis: () => new Promise<boolean>(() => undefined),
        'grpc:identity': async () => {
          throw new Error('connection refused');
        },
      },
      200,
    );
    expect(result).toEqual({
      ready: false,
      checks: { database: 'ok', redis: 'failing', 'grpc:identity': 'failing' },
      failing: { redis: 'no answer within 200 ms', 'grpc:identity': 'connection refused' },
    });
  });
});
