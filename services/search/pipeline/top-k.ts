// Helpers over any number of candidates. No Math.max(...values) or push(...values): a spread passes
// every value as a call argument, and past ~120k of them that overflows the call stack (an
// exhaustive pass over a big corpus has that many candidates).

/** The largest value, or `empty` when there is none. */
export function maxOf(values: Iterable<number>, empty: number): number {
  let best = -Infinity;
  let any = false;
  for (const v of values) {
    any = true;
    if (v > best) best = v;
  }
  return any ? best : empty;
}

/** Values mapped onto 0..1 (min → 0, max → 1); all 0.5 when they are all equal. */
export function minMaxNormalise(values: readonly number[]): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return values.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0.5));
}

/**
 * The best `k` items by `compare` (negative: a is better), in memory proportional to k however
 * many are offered: a binary heap whose root is the worst item kept.
 */
export class TopK<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Offers an item; kept when fewer than k are held or it beats the worst held. */
  offer(item: T): void {
    if (this.k <= 0) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (this.compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.down(0);
    }
  }

  get size(): number {
    return this.heap.length;
  }

  /** The items kept, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  /** True when a is worse than b (it belongs nearer the root). */
  private worse(a: T, b: T): boolean {
    return this.compare(a, b) > 0;
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.worse(heap[left]!, heap[worst]!)) worst = left;
      if (right < heap.length && this.worse(heap[right]!, heap[worst]!)) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}
