// The check in front of the authorization server, on generated input: any JSON document or form
// whose text is well-formed and NUL-free passes untouched; the same input with a NUL or a lone
// surrogate put into any one string — a value or a member name, at any depth — is refused, and a
// registration's body is refused as invalid_client_metadata. (Over HTTP: test/oauth-input.test.ts.)
import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { oauthInputProblem } from './oauth-input.js';

const requestOf = (url: string, contentType: string, body: string): FastifyRequest =>
  ({ raw: { url }, headers: { 'content-type': contentType }, body: Buffer.from(body) }) as unknown as FastifyRequest;

/** Text the store can keep: any well-formed string without NUL. */
const goodText = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !s.includes('\u0000'));
const badUnit = fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff');
const goodJson = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, goodText, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(goodText, tie('value'), { maxKeys: 4 }),
})).value;

/** `document` with `unit` put into its `pick`-th string (a value or a member name), if it has that many. */
function spoiled(document: unknown, pick: number, unit: string): { value: unknown; done: boolean } {
  let left = pick;
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return left-- === 0 ? `${value}${unit}` : value;
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, member]) => [left-- === 0 ? `${key}${unit}` : key, walk(member)]));
    }
    return value;
  };
  const value = walk(document);
  return { value, done: left < 0 };
}

describe('oauthInputProblem', () => {
  it('lets any well-formed JSON document and form through', () => {
    fc.assert(fc.property(goodJson, fc.dictionary(goodText, goodText), (document, form) => {
      expect(oauthInputProblem(requestOf('/oauth/reg', 'application/json', JSON.stringify(document)))).toBeUndefined();
      expect(oauthInputProblem(requestOf('/oauth/token', 'application/x-www-form-urlencoded', new URLSearchParams(form).toString()))).toBeUndefined();
    }), { numRuns: 300 });
  });

  it('refuses a JSON document with a NUL or a lone surrogate in any one string or member name', () => {
    fc.assert(fc.property(goodJson, fc.nat(40), badUnit, (document, pick, unit) => {
      const { value, done } = spoiled(document, pick, unit);
      fc.pre(done);
      // JSON.stringify writes a lone surrogate as its \u escape, as a client sending one would.
      const body = JSON.stringify(value);
      expect(oauthInputProblem(requestOf('/oauth/reg', 'application/json', body))).toMatchObject({ error: 'invalid_client_metadata' });
      expect(oauthInputProblem(requestOf('/oauth/token', 'application/json', body))).toMatchObject({ error: 'invalid_request' });
    }), { numRuns: 300 });
  });

  it('refuses a NUL in any one form or query parameter, name or value', () => {
    fc.assert(fc.property(fc.dictionary(goodText, goodText, { minKeys: 1 }), fc.nat(), fc.boolean(), (form, pick, inName) => {
      const entries = Object.entries(form);
      const at = pick % entries.length;
      const [name, value] = entries[at]!;
      entries[at] = inName ? [`${name}\u0000`, value] : [name, `${value}\u0000`];
      const encoded = new URLSearchParams(entries).toString();
      expect(oauthInputProblem(requestOf('/oauth/token', 'application/x-www-form-urlencoded', encoded))).toMatchObject({ error: 'invalid_request' });
      expect(oauthInputProblem(requestOf(`/oauth/auth?${encoded}`, '', ''))).toMatchObject({ error: 'invalid_request' });
    }), { numRuns: 300 });
  });
});
