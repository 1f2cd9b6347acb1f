// The view of a complete search, made once and kept by its id, with its JSON. A complete search
// never changes until it expires (docs/SEARCH.md), so every poll the search service answers
// "complete" shows the same view: the service is still asked on every poll (it checks the
// credential's fence and the expiry), and only what the edge makes of its answer — the view, and
// the REST body serialised from it — is kept. The view is frozen, so no surface can change a
// kept one; its JSON is found by the object itself (`keptJson`), never by content.
import { createBoundedMap } from '../../services/kit/bounded-map.js';

/** How many views are kept, and how many characters of JSON they may hold in all; the oldest go first. */
export const FINISHED_VIEWS_LIMIT = 2_000;
export const FINISHED_VIEWS_CHARS = 32 * 1024 * 1024;

const jsonOfView = new WeakMap<object, string>();

/** The JSON of a kept view, or undefined for any other value (serialise it as usual). */
export function keptJson(payload: unknown): string | undefined {
  return typeof payload === 'object' && payload !== null ? jsonOfView.get(payload) : undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export function createFinishedSearchViews(limit = FINISHED_VIEWS_LIMIT, charBudget = FINISHED_VIEWS_CHARS) {
  const views = createBoundedMap<string, object>(limit, charBudget, (view) => jsonOfView.get(view)!.length);
  return {
    /** The kept view of complete search `searchId`, made by `make` the first time (one caller, one shape of view). */
    viewOf<V extends object>(searchId: string, make: () => V): V {
      const kept = views.get(searchId) as V | undefined;
      if (kept) return kept;
      const view = deepFreeze(make());
      jsonOfView.set(view, JSON.stringify(view));
      views.set(searchId, view);
      return view;
    },

    get size(): number {
      return views.size;
    },
  };
}
