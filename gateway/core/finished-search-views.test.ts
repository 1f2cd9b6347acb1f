// The views of complete searches the edge keeps: one view per search id, made once, frozen, with its
// JSON found by the view itself, and no more kept than the bounds allow.
import { describe, expect, it } from 'vitest';
import { createFinishedSearchViews, keptJson } from './finished-search-views.js';

interface View {
  search_id: string;
  status: 'complete';
  matches: Array<{ profile_id: string; shared_communities: string[] }>;
}

const view = (id: string, matches = 1): View => ({
  search_id: id,
  status: 'complete',
  matches: Array.from({ length: matches }, (_, i) => ({ profile_id: `p_${i}`, shared_communities: ['c_a'] })),
});

describe('finished search views', () => {
  it('makes a search’s view once and answers the same view after', () => {
    const views = createFinishedSearchViews();
    let made = 0;
    const first = views.viewOf('s_1', () => (made++, view('s_1')));
    const again = views.viewOf('s_1', () => (made++, view('s_1', 3)));
    expect(again).toBe(first);
    expect(made).toBe(1);
  });

  it('freezes a kept view to its last array, so no surface can change what later polls show', () => {
    const kept = createFinishedSearchViews().viewOf('s_1', () => view('s_1'));
    expect(() => kept.matches.push({ profile_id: 'p_x', shared_communities: [] })).toThrow(TypeError);
    expect(() => kept.matches[0]!.shared_communities.push('c_b')).toThrow(TypeError);
    expect(kept.matches).toHaveLength(1);
  });

  it('gives the JSON of a kept view, and nothing for an equal object that is not the kept one', () => {
    const kept = createFinishedSearchViews().viewOf('s_1', () => view('s_1'));
    expect(keptJson(kept)).toBe(JSON.stringify(view('s_1')));
    expect(keptJson(view('s_1'))).toBeUndefined();
    expect(keptJson(null)).toBeUndefined();
    expect(keptJson('text')).toBeUndefined();
  });

  it('keeps at most its limit of views and its budget of characters, dropping the oldest', () => {
    const one = JSON.stringify(view('s_0')).length;
    const views = createFinishedSearchViews(3, 10 * one);
    for (const id of ['s_0', 's_1', 's_2', 's_3']) views.viewOf(id, () => view(id));
    expect(views.size).toBe(3);
    let remade = 0;
    views.viewOf('s_0', () => (remade++, view('s_0')));
    expect(remade).toBe(1); // the oldest was dropped, so it is made again
    const small = createFinishedSearchViews(100, 2.5 * one);
    for (const id of ['s_0', 's_1', 's_2']) small.viewOf(id, () => view(id));
    expect(small.size).toBe(2);
    // A view over the whole budget is answered but not kept.
    const tiny = createFinishedSearchViews(100, one - 1);
    tiny.viewOf('s_big', () => view('s_big'));
    expect(tiny.size).toBe(0);
  });
});
