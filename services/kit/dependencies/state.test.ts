import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { DependencyState } from './state.js';

function recorded() {
  const lines: Array<{ level: number; msg: string; dependency: string }> = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { lines, logger };
}

describe('dependency state', () => {
  it('logs one line when it goes down, one when it stays down past the repeat, one when it is back; none per call', () => {
    const { lines, logger } = recorded();
    let now = 0;
    const state = new DependencyState('redis', { logger, repeatMs: 10_000, now: () => now });
    state.succeeded();
    expect(lines).toEqual([]);
    for (let i = 0; i < 1000; i++) state.failed(new Error('Command timed out'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[50, 'redis unavailable: calls answer 503 until it is back']]);
    expect(state.down).toBe(true);
    now = 10_000;
    for (let i = 0; i < 1000; i++) state.failed(new Error('Command timed out'));
    expect(lines.map((l) => l.msg).slice(1)).toEqual(['redis still unavailable']);
    for (let i = 0; i < 100; i++) state.succeeded();
    expect(lines.map((l) => [l.level, l.msg, l.dependency]).slice(2)).toEqual([[30, 'redis available again', 'redis']]);
    expect(lines[2]).toMatchObject({ downForMs: 10_000, failedCalls: 2000 });
    expect(state.down).toBe(false);
  });
});
