// The edge's own rules over real HTTP: CORS, scopes per endpoint, the caller's profile, and
// deprecation headers on a configured route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { loadConfig } from '../services/kit/config.js';
import { createLogger } from '../services/kit/logger.js';
import { startSystem } from '../deploy/launcher/runtime.js';
import { bearer, request } from './helpers/http.js';
import { liveKey } from './helpers/keys.js';
import { storeNames } from './helpers/stores.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const profileKey = liveKey();
const searchOnlyKey = liveKey();
const noProfileKey = liveKey();
const orgKey = liveKey();

const seed: SeedInput = {
  users: [
    { id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' },
    { id: 'u_nop', email: 'nop@example.org', name: 'No Profile', plan: 'free' },
  ],
  organizations: [{ id: 'o_lab', name: 'Lab', members: [{ user: 'u_ada', role: 'owner' }] }],
  profiles: [
    { id: 'p_ada', user: 'u_ada', public: true, name: 'Ada L.', headline: 'Protein design', bio: 'Designs enzymes.',
      organization: 'Lab', location: 'Oslo', email: 'ada@example.org', orcid: '0000-0002-1825-0097' },
  ],
  keys: [
    { id: 'k_profile', secret: profileKey, owner: { user: 'u_ada' }, scopes: ['profile:read'] },
    { id: 'k_search', secret: searchOnlyKey, owner: { user: 'u_ada' }, scopes: ['search:read'] },
    { id: 'k_nop', secret: noProfileKey, owner: { user: 'u_nop' }, scopes: ['profile:read'] },
    { id: 'k_org', secret: orgKey, owner: { organization: 'o_lab' }, scopes: ['profile:read'] },
  ],
};

const ORIGIN = 'https://app.example.org';

describe.each(storeNames())('the edge on %s', (store) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({
      store,
      seed,
      env: {
        CORS_ALLOWED_ORIGINS: `${ORIGIN},https://other.example.org`,
        CORS_MAX_AGE_SECONDS: '900',
        API_DEPRECATIONS: JSON.stringify([
          { match: 'GET /v1/me/profile', deprecated_at: '2026-11-01T00:00:00Z', sunset_at: '2027-05-01T00:00:00Z', link: 'https://docs.example.org/deprecations/profile' },
        ]),
      },
    });
  });
  afterAll(async () => sys?.stop());

  describe('CORS', () => {
    it('grants a preflight from an allowed origin before authentication, with methods, headers and max-age', async () => {
      const res = await request(sys.restUrl, 'OPTIONS', '/v1/communities/c_bio/members', {
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'idempotency-key' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
      for (const h of ['authorization', 'x-api-key', 'content-type', 'idempotency-key', 'x-request-id']) expect(allowed).toContain(h);
      expect(res.headers.get('access-control-max-age')).toBe('900');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('answers a preflight from another origin 204 but grants nothing', async () => {
      const res = await request(sys.restUrl, 'OPTIONS', '/v1/me', {
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('treats an OPTIONS that is not a preflight like any request: 401 without credentials', async () => {
      expect((await request(sys.restUrl, 'OPTIONS', '/v1/me')).status).toBe(401);
      expect((await request(sys.restUrl, 'OPTIONS', '/v1/me', { headers: { origin: ORIGIN } })).status).toBe(401);
    });

    it('exposes the request id, rate-limit, deprecation and polling headers to an allowed origin, errors included', async () => {
      for (const headers of [{ origin: ORIGIN, ...bearer(profileKey) }, { origin: ORIGIN }]) {
        const res = await request(sys.restUrl, 'GET', '/v1/me', { headers });
        expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
        const exposed = res.headers.get('access-control-expose-headers')!;
        for (const h of ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Deprecation', 'Sunset', 'Link']) {
          expect(exposed).toContain(h);
        }
      }
    });
  });

  describe('scopes', () => {
    it('lets any valid scope read /v1/me', async () => {
      expect((await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(searchOnlyKey) })).status).toBe(200);
    });

    it('refuses /v1/me/profile without profile:read: 403 forbidden naming the scope', async () => {
      const res = await request(sys.restUrl, 'GET', '/v1/me/profile', { headers: bearer(searchOnlyKey) });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toContain('profile:read');
    });
  });

  describe('GET /v1/me/profile', () => {
    it("answers the caller's own profile record", async () => {
      const res = await request(sys.restUrl, 'GET', '/v1/me/profile', { headers: bearer(profileKey) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        profile_id: 'p_ada', user_id: 'u_ada', name: 'Ada L.', headline: 'Protein design', bio: 'Designs enzymes.',
        organization: 'Lab', location: 'Oslo', avatar_url: null, linkedin_url: null, orcid: '0000-0002-1825-0097',
        claimed: true, enrichment: null,
      });
    });

    it('is 404 for a user without a profile and for an organization-owned key (no user)', async () => {
      for (const key of [noProfileKey, orgKey]) {
        const res = await request(sys.restUrl, 'GET', '/v1/me/profile', { headers: bearer(key) });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });
  });

  describe('GET /v1/openapi.json', () => {
    it('serves the OpenAPI 3.1 document to any authenticated caller, and 401 otherwise', async () => {
      const res = await request(sys.restUrl, 'GET', '/v1/openapi.json', { headers: bearer(searchOnlyKey) });
      expect(res.status).toBe(200);
      expect(res.body.openapi).toMatch(/^3\.1\./);
      expect(Object.keys(res.body.paths)).toContain('/v1/me');
      expect((await request(sys.restUrl, 'GET', '/v1/openapi.json')).status).toBe(401);
    });
  });

  describe('deprecation', () => {
    it('announces Deprecation, Sunset and Link on the configured route only', async () => {
      const res = await request(sys.restUrl, 'GET', '/v1/me/profile', { headers: bearer(profileKey) });
      expect(res.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
      expect(res.headers.get('sunset')).toBe('Sat, 01 May 2027 00:00:00 GMT');
      expect(res.headers.get('link')).toBe(
        '<https://docs.example.org/deprecations/profile>; rel="deprecation"; type="text/html", ' +
          '<https://docs.example.org/deprecations/profile>; rel="sunset"; type="text/html"',
      );
      const other = await request(sys.restUrl, 'GET', '/v1/me', { headers: bearer(profileKey) });
      expect(other.headers.get('deprecation')).toBeNull();
      expect(other.headers.get('sunset')).toBeNull();
    });
  });
});

describe('a bad deprecation schedule', () => {
  it('stops start-up naming the problem', async () => {
    const config = loadConfig({
      DATA_DIR: 'memory://', PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'silent', ROLES: 'gateway',
      API_DEPRECATIONS: JSON.stringify([{ match: 'FETCH /v1/me', deprecated_at: 'soon' }]),
    });
    await expect(startSystem(config, createLogger('silent'))).rejects.toThrow(/API_DEPRECATIONS\.0\.(match|deprecated_at)/);
  });
});
