// The pure pieces of the MCP surface sized for an assistant: schema slimming, argument names in a
// refusal, the compact search view and the progress request check. End to end, on the demo data:
// test/mcp-assistant.test.ts.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../core/api-error.js';
import { argumentName, inArgumentNames, inToolArguments } from './argument-errors.js';
import { asksForProgress } from './progress.js';
import { slimInputSchema } from './slim-schema.js';
import { oneLine, presentSearch, WHY_MAX } from './tools/search-view.js';
import type { SearchMatchView } from '../core/search.js';

describe('slimInputSchema', () => {
  it('drops the pattern of a formatted string, long patterns and safe-integer bounds; keeps short patterns and real bounds', () => {
    const schema = z.toJSONSchema(
      z.object({
        email: z.email(),
        id: z.string().regex(/^[a-z]{1,8}$/),
        orcid: z.string().regex(/^(?:https?:\/\/(?:www\.)?orcid\.org\/)?\d{4}-?\d{4}-?\d{4}-?\d{3}[\dXx]$/),
        index: z.number().int().min(0),
        wait: z.number().int().min(0).max(25),
      }),
      { target: 'draft-2020-12', io: 'input' },
    ) as Record<string, unknown>;
    const raw = JSON.stringify(schema);
    expect(raw).toContain(String(Number.MAX_SAFE_INTEGER));
    const slim = slimInputSchema(schema) as { properties: Record<string, Record<string, unknown>> };
    expect(slim.properties.email).toEqual({ type: 'string', format: 'email' });
    expect(slim.properties.id!.pattern).toBe('^[a-z]{1,8}$');
    expect(slim.properties.orcid).not.toHaveProperty('pattern');
    expect(slim.properties.index).toEqual({ type: 'integer', minimum: 0 });
    expect(slim.properties.wait).toMatchObject({ minimum: 0, maximum: 25 });
    expect(JSON.stringify(slim)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  it('drops a description repeated inside a described wrapper (anyOf members, array items)', () => {
    const slim = slimInputSchema({
      type: 'object',
      properties: {
        a: { description: 'Outer.', anyOf: [{ type: 'string', description: 'Inner.' }, { type: 'null' }] },
        b: { description: 'People.', type: 'array', items: { type: 'string', description: 'One person.' } },
        c: { type: 'array', items: { type: 'string', description: 'Kept: the array says nothing.' } },
      },
    }) as { properties: Record<string, any> };
    expect(slim.properties.a.anyOf[0]).toEqual({ type: 'string' });
    expect(slim.properties.b.items).toEqual({ type: 'string' });
    expect(slim.properties.c.items.description).toBe('Kept: the array says nothing.');
  });
});

describe('refusals in the tool’s argument names', () => {
  it('names the argument, not REST’s part', () => {
    expect(argumentName('path.id')).toBe('community_id');
    expect(argumentName('path.profile_id')).toBe('profile_id');
    expect(argumentName('query.limit')).toBe('limit');
    expect(argumentName('body.members.0.email')).toBe('members.0.email');
    expect(argumentName('body')).toBe('arguments');
    expect(inArgumentNames('body.scope: Invalid option; body.limit: Too small')).toBe('scope: Invalid option; limit: Too small');
    expect(inArgumentNames('body: Unrecognized key: "color"')).toBe('arguments: Unrecognized key: "color"');
    expect(inArgumentNames('depth is required to start a run')).toBe('depth is required to start a run');
  });

  it('rewrites only invalid_request refusals, keeping status, code and extras', () => {
    expect(() => inToolArguments(() => { throw new ApiError(400, 'invalid_request', 'path.id: bad', { x: 1 }); })).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_request', message: 'community_id: bad', extras: { x: 1 } }),
    );
    expect(() => inToolArguments(() => { throw new ApiError(403, 'forbidden', 'path.id: kept'); })).toThrow(expect.objectContaining({ message: 'path.id: kept' }));
  });
});

describe('the compact search view', () => {
  const match = (id: string, weak: boolean, explanation: string | null = 'Matches "x" in the headline: "A. b.". Good match.'): SearchMatchView => ({
    profile_id: id, user_id: null, name: id, headline: null, organization: 'Org', location: null, avatar_url: null,
    score: 0.123456, semantic_score: 0.5, explanation, shared_communities: [], weak_match: weak,
  });

  it('one line: the first sentence outside quotes, unbolded, at most WHY_MAX characters', () => {
    expect(oneLine('Matches **x** in the headline: "A. b.". Good match.')).toBe('Matches x in the headline: "A. b.".');
    expect(oneLine(null)).toBeNull();
    const long = oneLine(`${'word '.repeat(100)}end.`)!;
    expect(long.length).toBeLessThanOrEqual(WHY_MAX);
    expect(long.endsWith('…')).toBe(true);
  });

  it('shows the first limit matches that are not weak, counts the weak ones; full is the body itself', () => {
    const view = { search_id: 's', status: 'complete' as const, matches: [match('a', false), match('w1', true), match('b', false), match('c', false), match('w2', true)] };
    const compact = presentSearch(view, { detail: 'compact', includeWeak: false, limit: 2 }) as any;
    expect(compact.matches.map((m: any) => m.profile_id)).toEqual(['a', 'b']);
    expect(compact).toMatchObject({ weak_matches_left_out: 2, more_matches: 1 });
    expect(compact.matches[0]).toEqual({ profile_id: 'a', name: 'a', organization: 'Org', score: 0.12, why: 'Matches "x" in the headline: "A. b.".' });
    const weak = presentSearch(view, { detail: 'compact', includeWeak: true, limit: 5 }) as any;
    expect(weak.matches.map((m: any) => m.weak_match ?? false)).toEqual([false, true, false, false, true]);
    expect(weak).not.toHaveProperty('weak_matches_left_out');
    expect(presentSearch(view, { detail: 'full', includeWeak: false, limit: 2 })).toBe(view);
    const pending = { search_id: 's', status: 'pending', poll_after_seconds: 2 };
    expect(presentSearch(pending, { detail: 'compact', includeWeak: false, limit: 5 })).toBe(pending);
  });
});

describe('asksForProgress', () => {
  it('is true for a tools/call with a progress token, alone or in a batch', () => {
    const call = (meta?: object) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, ...(meta && { _meta: meta }) } });
    expect(asksForProgress(call({ progressToken: 7 }))).toBe(true);
    expect(asksForProgress([call(), call({ progressToken: 'p' })])).toBe(true);
    expect(asksForProgress(call())).toBe(false);
    expect(asksForProgress(call({ progressToken: { no: 1 } }))).toBe(false);
    expect(asksForProgress({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 1 } } })).toBe(false);
    expect(asksForProgress(undefined)).toBe(false);
  });
});
