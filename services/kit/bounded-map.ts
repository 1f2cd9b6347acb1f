// A map that keeps at most `limit` entries whose sizes add up to at most `budget`, dropping the
// oldest kept first: for what a process keeps in memory only to answer faster (finished searches,
// their views), where forgetting costs a slower answer and never a wrong one.
export function createBoundedMap<K, V>(limit: number, budget: number, sizeOf: (value: V) => number) {
  const entries = new Map<K, { value: V; size: number }>();
  let used = 0;
  const drop = (key: K) => {
    used -= entries.get(key)?.size ?? 0;
    entries.delete(key);
  };

  return {
    get(key: K): V | undefined {
      return entries.get(key)?.value;
    },

    /** Keeps `value` under `key` (replacing what was there), unless it alone is over the budget. */
    set(key: K, value: V): void {
      const size = sizeOf(value);
      drop(key);
      if (size > budget) return;
      while (entries.size >= limit || used + size > budget) drop(entries.keys().next().value!);
      entries.set(key, { value, size });
      used += size;
    },

    delete: drop,

    /** The keys kept, oldest first (an entry may be deleted while they are walked). */
    keys(): IterableIterator<K> {
      return entries.keys();
    },

    get size(): number {
      return entries.size;
    },
  };
}

export type BoundedMap<K, V> = ReturnType<typeof createBoundedMap<K, V>>;
