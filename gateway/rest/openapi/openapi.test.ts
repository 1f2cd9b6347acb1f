// The OpenAPI document: generated from the endpoint contract, committed in docs/openapi.json
// without drift, clean under Redocly's recommended ruleset (linted offline), complete against the
// specification's endpoint table, and served as built at GET /v1/openapi.json.
import { readFileSync } from 'node:fs';
import { BaseResolver, createConfig, lintDocument, makeDocumentFromString } from '@redocly/openapi-core';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENDPOINTS } from '../../core/contract/endpoints.js';
import { EnrichmentRequest } from '../../core/contract/enrichment.js';
import { AddMembersRequest, RejectedItem, RosterQuery } from '../../core/contract/members.js';
import { SearchRequest } from '../../core/contract/search.js';
import openapiRoutes from '../routes/v1/openapi.js';
import { buildOpenApiDocument, serializeOpenApiDocument, type JsonObject } from './build-openapi.js';

const DOCS_FILE = new URL('../../../docs/openapi.json', import.meta.url);

/** The specification's endpoint table (the OPTIONS preflight aside) and GET /v1/openapi.json. */
const SPEC_TABLE: { method: string; path: string; scope: string | null }[] = [
  { method: 'get', path: '/v1/me', scope: null },
  { method: 'get', path: '/v1/me/profile', scope: 'profile:read' },
  { method: 'post', path: '/v1/me/enrich', scope: 'self:enrich' },
  { method: 'get', path: '/v1/me/enrich/runs/{run_id}', scope: 'self:enrich' },
  { method: 'post', path: '/v1/search', scope: 'search:read' },
  // The spec leaves the poll's scope open; polling needs the scope that started the search.
  { method: 'get', path: '/v1/search/{search_id}', scope: 'search:read' },
  { method: 'get', path: '/v1/communities/{id}/members', scope: 'profile:read' },
  { method: 'get', path: '/v1/communities/{id}/members/{profile_id}', scope: 'profile:read' },
  { method: 'post', path: '/v1/communities/{id}/members', scope: 'member:write' },
  { method: 'delete', path: '/v1/communities/{id}/members/{profile_id}', scope: 'member:write' },
  { method: 'post', path: '/v1/communities/{id}/enrich', scope: 'enrich:write' },
  { method: 'get', path: '/v1/communities/{id}/enrich/runs/{run_id}', scope: 'enrich:read' },
  { method: 'get', path: '/v1/openapi.json', scope: null },
];

/** Endpoints added within v1 beyond the specification's table (docs/API-DECISIONS.md, "Discovery"). */
const ADDED_IN_V1: { method: string; path: string; scope: string | null }[] = [
  { method: 'get', path: '/v1/communities', scope: null },
  { method: 'get', path: '/v1/communities/{id}/enrich/runs', scope: 'enrich:read' },
  { method: 'get', path: '/v1/me/enrich/runs', scope: 'self:enrich' },
  { method: 'get', path: '/v1/events', scope: 'webhooks:read' },
  { method: 'get', path: '/v1/events/{event_id}', scope: 'webhooks:read' },
  { method: 'post', path: '/v1/webhook_endpoints', scope: 'webhooks:write' },
  { method: 'get', path: '/v1/webhook_endpoints', scope: 'webhooks:read' },
  { method: 'get', path: '/v1/webhook_endpoints/{endpoint_id}', scope: 'webhooks:read' },
  { method: 'patch', path: '/v1/webhook_endpoints/{endpoint_id}', scope: 'webhooks:write' },
  { method: 'delete', path: '/v1/webhook_endpoints/{endpoint_id}', scope: 'webhooks:write' },
  { method: 'post', path: '/v1/webhook_endpoints/{endpoint_id}/rotate_secret', scope: 'webhooks:write' },
  { method: 'get', path: '/v1/webhook_endpoints/{endpoint_id}/deliveries', scope: 'webhooks:read' },
  { method: 'get', path: '/v1/webhook_endpoints/{endpoint_id}/deliveries/{delivery_id}', scope: 'webhooks:read' },
  { method: 'post', path: '/v1/webhook_endpoints/{endpoint_id}/deliveries/{delivery_id}/resend', scope: 'webhooks:write' },
  { method: 'post', path: '/v1/webhook_endpoints/{endpoint_id}/test', scope: 'webhooks:write' },
];

type Operation = JsonObject & { responses: Record<string, JsonObject>; parameters: JsonObject[] };

function operations(document: JsonObject): { method: string; path: string; op: Operation }[] {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
}

describe('OpenAPI document', () => {
  it('is committed in docs/openapi.json exactly as built (run `npm run openapi` after changing the contract)', () => {
    const committed = readFileSync(DOCS_FILE, 'utf8');
    expect(committed === serializeOpenApiDocument(), 'docs/openapi.json is stale: run `npm run openapi` and commit the result').toBe(true);
  });

  it('is deterministic', () => {
    expect(serializeOpenApiDocument()).toBe(serializeOpenApiDocument());
  });

  describe('Redocly lint (recommended ruleset, offline)', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
    });

    it('reports no error and no warning, and fetches nothing', async () => {
      const fetched: string[] = [];
      const refuse = async (url: unknown) => {
        fetched.push(String(url));
        throw new Error('the linter must not use the network');
      };
      vi.stubGlobal('fetch', refuse);
      const config = await createConfig({
        extends: ['recommended'],
        rules: {
          // The API has no published license (the package is private and names none); inventing
          // one in the document would be false. Every other recommended rule stays on.
          'info-license': 'off',
        },
      });
      const problems = await lintDocument({
        document: makeDocumentFromString(serializeOpenApiDocument(), 'docs/openapi.json'),
        config,
        externalRefResolver: new BaseResolver({ http: { headers: [], customFetch: refuse } }),
      });
      const describeProblem = (p: (typeof problems)[number]) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`;
      const errors = problems.filter((p) => p.severity === 'error').map(describeProblem);
      const warnings = problems.filter((p) => p.severity === 'warn').map(describeProblem);
      expect(errors, `lint errors:\n${errors.join('\n')}`).toEqual([]);
      expect(warnings, `lint warnings:\n${warnings.join('\n')}`).toEqual([]);
      expect(fetched).toEqual([]);
    });
  });

  describe('completeness', () => {
    const document = buildOpenApiDocument();

    it('is OpenAPI 3.1 with info version 1.0.0 and server /', () => {
      expect(document.openapi).toBe('3.1.0');
      expect((document.info as JsonObject).version).toBe('1.0.0');
      expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    });

    it('has every endpoint of the specification table and the discovery, event and webhook endpoints added within v1, with method and scope, and nothing else', () => {
      const documented = operations(document).map(({ method, path, op }) => ({ method, path, scope: op['x-required-scope'] }));
      const expected = [...SPEC_TABLE, ...ADDED_IN_V1];
      expect(documented).toEqual(expect.arrayContaining(expected));
      expect(documented).toHaveLength(expected.length);
      expect(ENDPOINTS).toHaveLength(expected.length);
    });

    it('names the required scope in each description and in the security requirements (on the oauth2 scheme)', () => {
      for (const { method, path, op } of operations(document)) {
        const scope = op['x-required-scope'] as string | null;
        const label = `${method.toUpperCase()} ${path}`;
        expect(op.description, label).toContain(scope ? `Required scope: \`${scope}\`` : 'Required scope: none');
        // Scopes hang on the oauth2 scheme, the one that declares them; API keys list none.
        expect(op.security, label).toEqual([{ apiKeyBearer: [] }, { apiKeyHeader: [] }, { oauth2: scope ? [scope] : [] }]);
      }
    });

    it('documents 401 and 429 with the error envelope on every operation, and X-Request-Id on every response', () => {
      for (const { method, path, op } of operations(document)) {
        const label = `${method.toUpperCase()} ${path}`;
        for (const status of ['401', '429']) {
          expect(op.responses[status], `${label} ${status}`).toMatchObject({
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          });
        }
        expect(op.responses['429']!.headers, label).toHaveProperty('Retry-After');
        for (const [status, response] of Object.entries(op.responses)) {
          expect(response.headers, `${label} ${status}`).toHaveProperty('X-Request-Id');
          if (status !== '401') expect(response.headers, `${label} ${status}`).toHaveProperty('RateLimit-Remaining');
          if (status === '202') expect(response.headers, `${label} ${status}`).toMatchObject({ Location: {}, 'Retry-After': {} });
        }
      }
    });

    it('takes Idempotency-Key on the two community write POSTs only', () => {
      const withKey = operations(document)
        .filter(({ op }) => op.parameters.some((p) => p.name === 'Idempotency-Key'))
        .map(({ method, path }) => `${method} ${path}`);
      expect(withKey.sort()).toEqual(['post /v1/communities/{id}/enrich', 'post /v1/communities/{id}/members']);
    });

    it('answers async starts with 202 and the dry-run estimate with 200', () => {
      const paths = document.paths as Record<string, Record<string, Operation>>;
      expect(Object.keys(paths['/v1/search']!.post!.responses)).toEqual(expect.arrayContaining(['200', '202']));
      expect(Object.keys(paths['/v1/me/enrich']!.post!.responses)).toContain('202');
      expect(Object.keys(paths['/v1/communities/{id}/enrich']!.post!.responses)).toEqual(expect.arrayContaining(['200', '202']));
    });
  });

  describe('contract schemas (the ones routes validate with)', () => {
    it('search: refuses include_teams whatever its value', () => {
      for (const value of [true, false, null, 'yes']) {
        expect(SearchRequest.safeParse({ query: 'rna', scope: 'public', include_teams: value }).success, String(value)).toBe(false);
      }
    });

    it('search: needs community_id for scope community', () => {
      expect(SearchRequest.safeParse({ query: 'rna', scope: 'community' }).success).toBe(false);
      expect(SearchRequest.safeParse({ query: 'rna', scope: 'community', community_id: 'c_bio' }).success).toBe(true);
      expect(SearchRequest.safeParse({ query: 'rna', scope: 'all' }).success).toBe(true);
    });

    it('search: defaults limit to 20 and clamps it to 50; wait_seconds is 0–25, default 20', () => {
      expect(SearchRequest.parse({ query: 'rna', scope: 'public' })).toMatchObject({ limit: 20, wait_seconds: 20 });
      expect(SearchRequest.parse({ query: 'rna', scope: 'public', limit: 500 }).limit).toBe(50);
      expect(SearchRequest.parse({ query: 'rna', scope: 'public', limit: 7 }).limit).toBe(7);
      expect(SearchRequest.safeParse({ query: 'rna', scope: 'public', limit: 0 }).success).toBe(false);
      expect(SearchRequest.parse({ query: 'rna', scope: 'public', wait_seconds: 0 }).wait_seconds).toBe(0);
      expect(SearchRequest.safeParse({ query: 'rna', scope: 'public', wait_seconds: 26 }).success).toBe(false);
    });

    it('search: needs a non-empty query of at most 1000 characters and a known scope', () => {
      expect(SearchRequest.safeParse({ scope: 'public' }).success).toBe(false);
      expect(SearchRequest.safeParse({ query: '   ', scope: 'public' }).success).toBe(false);
      expect(SearchRequest.safeParse({ query: 'x'.repeat(1001), scope: 'public' }).success).toBe(false);
      expect(SearchRequest.safeParse({ query: 'rna', scope: 'teams' }).success).toBe(false);
    });

    it('add members: at most 100, role member or admin; an item without an identifier is rejected alone', () => {
      const members = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `p${i}@example.org` }));
      expect(AddMembersRequest.safeParse({ members: members(100), role: 'member' }).success).toBe(true);
      expect(AddMembersRequest.safeParse({ members: members(101), role: 'member' }).success).toBe(false);
      expect(AddMembersRequest.safeParse({ members: members(1), role: 'owner' }).success).toBe(false);
      expect(AddMembersRequest.safeParse({ members: members(1), role: 'admin' }).success).toBe(true);
      expect(AddMembersRequest.safeParse({ members: [{ name: 'Ada', headline: 'Chemist' }] }).success).toBe(true);
      const alone = AddMembersRequest.parse({ members: [{ headline: 'Chemist' }, { email: 'ok@example.org' }] });
      expect(alone.members[0]).toEqual(new RejectedItem('give at least one of email, linkedin_url, orcid, name'));
      expect(alone.members[1]).toEqual({ email: 'ok@example.org' });
      expect(AddMembersRequest.safeParse({ members: [{ name: 'Ada', email: 'ada@example.org' }] }).success).toBe(true);
    });

    it('enrichment: every field optional; workflow_key is smart_enrich only', () => {
      expect(EnrichmentRequest.safeParse({}).success).toBe(true);
      expect(
        EnrichmentRequest.safeParse({
          depth: 'deep',
          profile_ids: ['p_1'],
          joined_since: '2025-01-01T00:00:00Z',
          include_already_enriched: true,
          workflow_key: 'smart_enrich',
          dry_run: true,
        }).success,
      ).toBe(true);
      expect(EnrichmentRequest.safeParse({ workflow_key: 'other' }).success).toBe(false);
      expect(EnrichmentRequest.safeParse({ depth: 'extreme' }).success).toBe(false);
    });

    it('roster query: limit defaults to 50, larger values are clamped to 200, below 1 refused; read from the query string', () => {
      expect(RosterQuery.parse({})).toEqual({ limit: 50 });
      expect(RosterQuery.parse({ limit: '200', after: 'abc' })).toEqual({ limit: 200, after: 'abc' });
      expect(RosterQuery.parse({ limit: '201' })).toEqual({ limit: 200 });
      expect(RosterQuery.safeParse({ limit: '0' }).success).toBe(false);
      expect(RosterQuery.safeParse({ limit: '2.5' }).success).toBe(false);
    });
  });

  describe('GET /v1/openapi.json', () => {
    it('serves the built document', async () => {
      const app = Fastify();
      await app.register(openapiRoutes, { prefix: '/v1' });
      try {
        const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual(buildOpenApiDocument());
      } finally {
        await app.close();
      }
    });
  });
});
