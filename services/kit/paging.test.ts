import { describe, expect, it } from 'vitest';
import { clampPageSize, pageOf } from './paging.js';

describe('paging', () => {
  it('clamps page sizes: 0 is the default, above the maximum is the maximum', () => {
    expect(clampPageSize(0)).toBe(50);
    expect(clampPageSize(7)).toBe(7);
    expect(clampPageSize(1000)).toBe(200);
    expect(clampPageSize(0, 20, 50)).toBe(20);
  });

  it('cuts a limit+1 fetch to the page and names the next token only when more follow', () => {
    expect(pageOf([1, 2, 3, 4], 3, String)).toEqual({ items: [1, 2, 3], nextPageToken: '3' });
    expect(pageOf([1, 2, 3], 3, String)).toEqual({ items: [1, 2, 3], nextPageToken: '' });
    expect(pageOf([], 3, String)).toEqual({ items: [], nextPageToken: '' });
  });
});
