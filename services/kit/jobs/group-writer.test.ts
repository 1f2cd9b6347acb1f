import { describe, expect, it } from 'vitest';
import { createGroupWriter } from './group-writer.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('group writer', () => {
  it('writes what arrives while a group is being written as the next group, in order', async () => {
    const groups: number[][] = [];
    let release!: () => void;
    const writer = createGroupWriter<number>(async (group) => {
      groups.push(group);
      if (groups.length === 1) await new Promise<void>((r) => (release = r));
    });
    writer.add(1);
    await tick();
    writer.add(2);
    writer.add(3);
    await tick();
    release();
    await writer.flush();
    expect(groups).toEqual([[1], [2, 3]]);
  });

  it('writes items that come one at a time one at a time, each before the next arrives', async () => {
    const groups: number[][] = [];
    const writer = createGroupWriter<number>(async (group) => {
      groups.push(group);
    });
    for (let i = 0; i < 3; i++) {
      writer.add(i);
      await writer.flush();
      expect(groups).toHaveLength(i + 1);
    }
    expect(groups).toEqual([[0], [1], [2]]);
  });

  it('after a failed write, drops what is queued, refuses new items and rejects every flush with the failure', async () => {
    const written: number[][] = [];
    const writer = createGroupWriter<number>(async (group) => {
      if (group.includes(1)) throw new Error('claim lost');
      written.push(group);
    });
    writer.add(1);
    writer.add(2);
    await expect(writer.flush()).rejects.toThrow('claim lost');
    expect(() => writer.add(3)).toThrow('claim lost');
    await expect(writer.flush()).rejects.toThrow('claim lost');
    expect(written).toEqual([]);
  });

  it('gathers the items added in one turn of the event loop into the first group', async () => {
    const groups: number[][] = [];
    const writer = createGroupWriter<number>(async (group) => {
      groups.push(group);
    });
    writer.add(1);
    await Promise.resolve();
    writer.add(2);
    await writer.flush();
    expect(groups).toEqual([[1, 2]]);
  });

  it('writes up to `concurrency` groups at once, each of what was queued when it started', async () => {
    const groups: number[][] = [];
    const releases: Array<() => void> = [];
    let writing = 0;
    let mostAtOnce = 0;
    const writer = createGroupWriter<number>(async (group) => {
      groups.push(group);
      mostAtOnce = Math.max(mostAtOnce, ++writing);
      await new Promise<void>((r) => releases.push(r));
      writing--;
    }, 2);
    writer.add(1);
    await tick();
    writer.add(2);
    await tick();
    writer.add(3);
    writer.add(4);
    await tick();
    // Both lanes are busy: 3 and 4 wait for the first lane to be free, then go as one group.
    expect(groups).toEqual([[1], [2]]);
    releases.shift()!();
    await tick();
    expect(groups).toEqual([[1], [2], [3, 4]]);
    while (releases.length > 0) {
      releases.shift()!();
      await tick();
    }
    await writer.flush();
    expect(mostAtOnce).toBe(2);
  });

  it('survives a write that throws before its first await', async () => {
    const writer = createGroupWriter<number>(() => {
      throw new Error('refused at once');
    });
    writer.add(1);
    await expect(writer.flush()).rejects.toThrow('refused at once');
  });

  it('flushes at once when nothing was added', async () => {
    const writer = createGroupWriter<number>(async () => {
      throw new Error('never called');
    });
    await expect(writer.flush()).resolves.toBeUndefined();
  });
});
