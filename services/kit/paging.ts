// Keyset pages for List* RPCs: the repository fetches one row more than the page, and the extra
// row says whether another page follows.

/** A requested page size: 0 means the default; anything above the maximum is clamped. */
export function clampPageSize(requested: number, fallback = 50, max = 200): number {
  return Math.min(Math.max(requested || fallback, 1), max);
}

/** Cuts `rows` (fetched with limit + 1) to the page and names the token of the next one ('' at the end). */
export function pageOf<T>(rows: T[], limit: number, tokenOf: (last: T) => string): { items: T[]; nextPageToken: string } {
  const items = rows.slice(0, limit);
  return { items, nextPageToken: rows.length > limit ? tokenOf(items[items.length - 1]!) : '' };
}
