// One read asked for by many requests at once, answered by one statement for all of them. Under
// load, the requests of one turn of the event loop (the I/O the loop found ready together) each ask
// for their own row; each statement costs a round trip, a socket write and the store's own per-statement
// work, which were most of a GET /v1/me (`npm run bench`). The reads are collected until the
// loop's check phase (setImmediate: after every ready I/O callback has run) and read together.
// Nothing is cached: every request still reads the store, after it arrived, so what it sees is
// as fresh as a read of its own (a revocation committed before is seen). DataLoader does the
// collecting and the dispatch; a failed statement fails each request of its batch.
import DataLoader from 'dataloader';

/** At most this many reads in one statement (a statement's arrays stay small). */
export const MAX_BATCH = 256;

/**
 * A function reading one answer by `key`, batched: `readMany` gets every key asked for in one turn
 * (distinct or not) and answers each, in the same order.
 */
export function batchedRead<K, V>(readMany: (keys: readonly K[]) => Promise<ReadonlyArray<V>>): (key: K) => Promise<V> {
  // Array.from: an answer left unset (a hole) is undefined, where DataLoader would refuse the whole batch.
  const loader = new DataLoader<K, V>(async (keys) => Array.from(await readMany(keys)), {
    cache: false,
    maxBatchSize: MAX_BATCH,
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  });
  return (key) => loader.load(key);
}

/**
 * A `readMany` for asks that share a statement only within a group (the UTC day or the month they
 * count in: one group, but across midnight two): `readGroup` reads one group's asks, answering each
 * in the order given, and the answers come back in the order asked.
 */
export function perGroup<K, V>(groupOf: (key: K) => string, readGroup: (keys: K[], group: string) => Promise<ReadonlyArray<V>>) {
  return async (keys: readonly K[]): Promise<V[]> => {
    const answers = new Array<V>(keys.length);
    for (const group of new Set(keys.map(groupOf))) {
      const indexes = keys.flatMap((key, i) => (groupOf(key) === group ? [i] : []));
      const read = await readGroup(indexes.map((i) => keys[i]!), group);
      indexes.forEach((i, j) => (answers[i] = read[j]!));
    }
    return answers;
  };
}

/**
 * A `readMany` that reads each distinct ask once (asks are the same when `keyOf` gives the same
 * key): requests of one moment often ask the same thing (the first page of a roster many are
 * reading), and each still gets its own answer, read after it asked.
 */
export function distinctAsks<K, V>(keyOf: (key: K) => string, readMany: (keys: readonly K[]) => Promise<ReadonlyArray<V>>) {
  return async (keys: readonly K[]): Promise<V[]> => {
    const slotOf = new Map<string, number>();
    const distinct: K[] = [];
    const slots = keys.map((key) => {
      const id = keyOf(key);
      let slot = slotOf.get(id);
      if (slot === undefined) slotOf.set(id, (slot = distinct.push(key) - 1));
      return slot;
    });
    const answers = await readMany(distinct);
    return slots.map((slot) => answers[slot]!);
  };
}
