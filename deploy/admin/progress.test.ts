// The progress bar of long admin work: drawn on a terminal, absent on a pipe, and the result
// stream (stdout) never touched.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from './progress.js';

/** A stream that says it is (or is not) a terminal, and keeps what was written. */
function stream(isTTY: boolean) {
  const s = new PassThrough() as PassThrough & NodeJS.WriteStream & { text(): string };
  let text = '';
  s.on('data', (chunk: Buffer) => void (text += chunk.toString('utf8')));
  Object.assign(s, { isTTY, columns: 100, rows: 30, cursorTo: (_x: number, cb?: () => void) => (cb?.(), true), clearLine: (_d: number, cb?: () => void) => (cb?.(), true), moveCursor: (_x: number, _y: number, cb?: () => void) => (cb?.(), true), clearScreenDown: (cb?: () => void) => (cb?.(), true), text: () => text });
  return s;
}

describe('progress bar', () => {
  it('draws label, bar, share and counts on a terminal', async () => {
    const tty = stream(true);
    const bar = progressBar('seed', true, tty);
    bar.update(0, 4, 'records');
    bar.update(4, 4, 'records');
    bar.stop();
    await new Promise((r) => setImmediate(r));
    expect(tty.text()).toMatch(/seed \[[█░]+\] 100% 4\/4 records/);
  });

  it('writes nothing on a pipe, or when turned off (--no-progress)', async () => {
    const pipe = stream(false);
    const off = stream(true);
    for (const bar of [progressBar('seed', true, pipe), progressBar('seed', false, off)]) {
      bar.update(1, 2);
      bar.stop();
    }
    await new Promise((r) => setImmediate(r));
    expect(pipe.text()).toBe('');
    expect(off.text()).toBe('');
  });
});
