// Reads asked for in the same turn of the event loop are read together, each answered with its own
// value; a later read goes in a later batch; a failed batch fails its own reads only; asks that
// share a statement only within a group (a day, a month) are read group by group; the same ask
// made by several requests of a moment is read once.
import { describe, expect, it } from 'vitest';
import { batchedRead, distinctAsks, MAX_BATCH, perGroup } from './batched-read.js';

function recording(fail?: (keys: readonly number[]) => boolean) {
  const batches: number[][] = [];
  const read = batchedRead(async (keys: readonly number[]) => {
    batches.push([...keys]);
    if (fail?.(keys)) throw new Error('the store is down');
    return keys.map((k) => k * 10);
  });
  return { batches, read };
}

describe('batchedRead', () => {
  it('reads what was asked in one turn in one call, answering each its own value, duplicates included', async () => {
    const { batches, read } = recording();
    const answers = await Promise.all([read(1), read(2), read(3), read(2)]);
    expect(answers).toEqual([10, 20, 30, 20]);
    expect(batches).toEqual([[1, 2, 3, 2]]);
  });

  it('gathers reads asked from separate callbacks of the same turn, and starts a new batch after', async () => {
    const { batches, read } = recording();
    // Callbacks run one after another in one phase of the loop, with their promise jobs between them.
    const asked = await new Promise<Promise<number>[]>((resolve) => {
      const out: Promise<number>[] = [];
      setTimeout(() => out.push(read(1)), 0);
      setTimeout(() => Promise.resolve().then(() => out.push(read(2))), 0);
      setTimeout(() => resolve(out), 0);
    });
    expect(await Promise.all(asked)).toEqual([10, 20]);
    expect(await read(3)).toBe(30);
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('splits a crowd into batches of at most MAX_BATCH', async () => {
    const { batches, read } = recording();
    const keys = Array.from({ length: MAX_BATCH + 5 }, (_, i) => i);
    expect(await Promise.all(keys.map(read))).toEqual(keys.map((k) => k * 10));
    expect(batches.map((b) => b.length)).toEqual([MAX_BATCH, 5]);
  });

  it('answers undefined for a key its read left unset', async () => {
    const read = batchedRead(async (keys: readonly number[]) => {
      const answers = new Array<string | undefined>(keys.length);
      answers[0] = 'found';
      return answers;
    });
    expect(await Promise.all([read(1), read(2)])).toEqual(['found', undefined]);
  });

  it('fails every read of a failed batch, and only those', async () => {
    const { read } = recording((keys) => keys.includes(1));
    const failed = await Promise.allSettled([read(1), read(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await read(3)).toBe(30);
  });
});

describe('perGroup', () => {
  it('reads each group once, with its own asks in order, and answers in the order asked', async () => {
    const reads: Array<{ group: string; keys: string[] }> = [];
    const readMany = perGroup(
      (key: string) => key.slice(0, 1),
      async (keys, group) => {
        reads.push({ group, keys });
        return keys.map((k) => `${k}!`);
      },
    );
    expect(await readMany(['a1', 'b1', 'a2', 'b2', 'a3'])).toEqual(['a1!', 'b1!', 'a2!', 'b2!', 'a3!']);
    expect(reads).toEqual([
      { group: 'a', keys: ['a1', 'a2', 'a3'] },
      { group: 'b', keys: ['b1', 'b2'] },
    ]);
  });
});

describe('distinctAsks', () => {
  it('reads each distinct ask once and answers every ask, duplicates included, in the order asked', async () => {
    const reads: Array<Array<{ page: string; caller: string }>> = [];
    const readMany = distinctAsks(
      (ask: { page: string; caller: string }) => `${ask.page} ${ask.caller}`,
      async (asks) => {
        reads.push([...asks]);
        return asks.map((ask) => `${ask.page} for ${ask.caller}`);
      },
    );
    const asks = [{ page: 'p1', caller: 'a' }, { page: 'p1', caller: 'b' }, { page: 'p1', caller: 'a' }, { page: 'p2', caller: 'a' }];
    expect(await readMany(asks)).toEqual(['p1 for a', 'p1 for b', 'p1 for a', 'p2 for a']);
    expect(reads).toEqual([[asks[0], asks[1], asks[3]]]);
  });
});
