// `--limit N` over the services' keyset pages (at most 200 a page): fetches pages until N items or
// the end, and keeps the token of what follows so a script can tell the list was cut (and go on
// from there: `--after TOKEN` where a command offers it).

export const DEFAULT_LIMIT = 50;

export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

/** `after`: where to start, a previous list's next_page_token (`--after`); the first page when empty. */
export async function upTo<T>(limit: number, fetch: (pageSize: number, pageToken: string) => Promise<Page<T>>, after = ''): Promise<Page<T>> {
  const items: T[] = [];
  let token = after;
  do {
    const page = await fetch(Math.min(200, limit - items.length), token);
    items.push(...page.items);
    token = page.nextPageToken;
  } while (token && items.length < limit);
  return { items: items.slice(0, limit), nextPageToken: token };
}
