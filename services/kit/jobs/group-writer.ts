// Writes items in groups as they come, one group at a time (or `concurrency` at once): whatever
// arrived while a group was being written, or in the same turn of the event loop as the first, is
// the next group. Items that come slowly (a provider's answers) are written one by one as soon as
// each is ready; items that come fast (work bound by this process's CPU) gather into large groups,
// one round trip each. A failed write stops the writer: later items are dropped and every flush
// rejects with that failure (the caller's work is then resumed, not half-written).
export interface GroupWriter<T> {
  /** Queues an item; throws the writer's failure if a write has already failed. */
  add(item: T): void;
  /** Resolves once everything added so far is written; rejects with the failure of any write. */
  flush(): Promise<void>;
}

/** `concurrency`: groups written at once (each takes everything queued when it starts). */
export function createGroupWriter<T>(write: (group: T[]) => Promise<void>, concurrency = 1): GroupWriter<T> {
  let queued: T[] = [];
  const lanes = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;

  async function drain(): Promise<void> {
    try {
      while (queued.length > 0 && !failure) {
        const group = queued;
        queued = [];
        await write(group);
      }
    } catch (error) {
      failure ??= { error };
      queued = [];
    }
  }

  function start(): void {
    // A lane's first group waits for the event loop's next turn, gathering everything added in
    // this one (work that never waits on I/O adds all of its items in one turn). A lane leaves the
    // set (or hands on to a new lane for items added in between) before anyone awaiting it resumes.
    const lane: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve)).then(drain).then(() => {
      lanes.delete(lane);
      if (queued.length > 0 && !failure && lanes.size < concurrency) start();
    });
    lanes.add(lane);
  }

  return {
    add(item) {
      if (failure) throw failure.error;
      queued.push(item);
      if (lanes.size < concurrency) start();
    },
    async flush() {
      while (lanes.size > 0) await Promise.all(lanes);
      if (failure) throw failure.error;
    },
  };
}
