// The edge's own rules in envoy/envoy.yaml (converted against Envoy's schema first): TLS, routing
// (simulated per method and path), retries only for GET/HEAD, request ids, JSON access logs,
// tracing, clusters, circuit breakers and outlier detection.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ALLOWED_METHODS, ALLOWED_REQUEST_HEADERS, EXPOSED_HEADERS } from '../gateway/rest/plugins/cors.js';
import { loadConfig } from '../services/kit/config.js';
import type { Obj } from './helpers/envoy-converter.js';
import { get, list, referencedClusters, retriedUnsafeRequests, routeFor, seconds, structToJson, typeOf, retryPolicyOf, httpConnectionManagers } from './helpers/envoy-routes.js';
import { envoySuite } from './helpers/envoy-suite.js';
import { repoRoot } from './helpers/envoy-schema.js';

describe('envoy/envoy.yaml', () => {
  const { raw, bootstrap, hcm, clusters, check, copy, rawHcm } = envoySuite();

  describe('the edge', () => {
    it('terminates TLS on 8443 with certificates mounted under /etc/envoy/tls/', () => {
      const listener = list(get(bootstrap(), 'static_resources', 'listeners')).find(
        (l) => get(l, 'address', 'socket_address', 'port_value') === 8443,
      );
      expect(listener).toBeDefined();
      for (const chain of list(listener!.filter_chains)) {
        const tls = get(chain, 'transport_socket', 'typed_config');
        expect(typeOf(tls)).toBe('type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext');
        const certs = list(get(tls, 'common_tls_context', 'tls_certificates'));
        expect(certs.length).toBeGreaterThan(0);
        for (const cert of certs) {
          expect(get(cert, 'certificate_chain', 'filename')).toMatch(/^\/etc\/envoy\/tls\//);
          expect(get(cert, 'private_key', 'filename')).toMatch(/^\/etc\/envoy\/tls\//);
        }
      }
    });

    it('keeps the admin interface on loopback', () => {
      expect(get(bootstrap(), 'admin', 'address', 'socket_address', 'address')).toBe('127.0.0.1');
    });

    it('routes /v1 and unknown paths to the gateway (timeout >= 30 s) and /mcp to mcp', () => {
      const cases: [string, string, string][] = [
        ['GET', '/v1/me', 'gateway'],
        ['POST', '/v1/search', 'gateway'],
        ['GET', '/v1', 'gateway'],
        ['OPTIONS', '/v1/no/such/path', 'gateway'],
        ['OPTIONS', '/elsewhere', 'gateway'],
        ['GET', '/', 'gateway'],
        ['GET', '/mcpx', 'gateway'],
        ['POST', '/mcp', 'mcp'],
        ['GET', '/mcp', 'mcp'],
        ['DELETE', '/mcp', 'mcp'],
      ];
      for (const [method, p, cluster] of cases) {
        const m = routeFor(hcm(), { method, path: p });
        expect(get(m?.route, 'route', 'cluster'), `${method} ${p}`).toBe(cluster);
        if (cluster === 'gateway') expect(seconds(get(m?.route, 'route', 'timeout')), `${method} ${p}`).toBeGreaterThanOrEqual(30);
      }
      const mcp = routeFor(hcm(), { method: 'GET', path: '/mcp' })!.route;
      const timeout = seconds(get(mcp, 'route', 'timeout'));
      // streamable HTTP: no overall deadline (0 disables it) or a long one, and an idle timeout
      expect(timeout === 0 || (timeout ?? 0) >= 300).toBe(true);
      expect(seconds(get(mcp, 'route', 'idle_timeout'))).toBeGreaterThan(0);
    });

    it('routes the settings web app’s own host name to the settings cluster (the gateway’s SETTINGS_PORT); never retries its forms', () => {
      const host = 'settings.example.org';
      for (const [method, p] of [['GET', '/'], ['GET', '/keys'], ['GET', '/v1/me'], ['POST', '/keys'], ['POST', '/sign-in/link'], ['GET', '/assets/settings.css']] as const) {
        const m = routeFor(hcm(), { method, path: p, host });
        expect(get(m?.route, 'route', 'cluster'), `${method} ${host}${p}`).toBe('settings');
        expect(seconds(get(m?.route, 'route', 'timeout')), `${method} ${p}`).toBeGreaterThanOrEqual(30);
        expect(retryPolicyOf(m!) !== undefined, `${method} ${p} retried`).toBe(method === 'GET');
      }
      // Any other host keeps the API's routes: /keys there is the gateway's (401 in its envelope).
      expect(get(routeFor(hcm(), { method: 'GET', path: '/keys', host: 'api.example.org' })?.route, 'route', 'cluster')).toBe('gateway');
      const settings = clusters().get('settings');
      expect(get(settings, 'load_assignment', 'endpoints', 0, 'lb_endpoints', 0, 'endpoint', 'address', 'socket_address'))
        .toMatchObject({ address: 'gateway.expertnet.svc.cluster.local', port_value: 8082 });
      expect(get(settings, 'health_checks', 0, 'http_health_check', 'path')).toBe('/readyz');
      expect(get(settings, 'load_assignment', 'endpoints', 0, 'lb_endpoints', 0, 'endpoint', 'health_check_config', 'port_value')).toBe(9090);
      // Same-origin forms: no CORS grant on the settings host.
      const settingsHost = list(get(rawHcm(raw()), 'route_config', 'virtual_hosts')).find((v) => v.name === 'settings');
      expect(JSON.stringify(settingsHost)).not.toContain('envoy.filters.http.cors');
    });

    it('retries GET and HEAD on /v1 only for failures before processing, and never a POST or other unsafe method', () => {
      for (const method of ['GET', 'HEAD']) {
        const m = routeFor(hcm(), { method, path: '/v1/me' })!;
        const policy = retryPolicyOf(m);
        expect(policy, method).toBeDefined();
        expect(new Set(String(policy!.retry_on).split(','))).toEqual(new Set(['connect-failure', 'refused-stream', 'unavailable']));
        expect(Number(get(policy, 'num_retries', 'value'))).toBeGreaterThan(0);
      }
      expect(retriedUnsafeRequests(hcm())).toEqual([]);
      // the check bites: a virtual-host retry policy would retry POST /v1/search
      const cfg = copy();
      (get(cfg, 'static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config', 'route_config', 'virtual_hosts', 0) as Obj).retry_policy =
        { retry_on: '5xx' };
      const { object, problems } = check(cfg);
      expect(problems).toEqual([]);
      expect(retriedUnsafeRequests(httpConnectionManagers(object!)[0]!)).toContain('POST /v1/search');
    });

    /** The CORS policy of each route, by route name (from the YAML: typed_per_filter_config holds Any). */
    const corsPolicies = (): Map<string, Obj | undefined> => {
      const routes = list(get(rawHcm(raw()), 'route_config', 'virtual_hosts', 0, 'routes'));
      return new Map(routes.map((r) => [String(r.name), get(r, 'typed_per_filter_config', 'envoy.filters.http.cors') as Obj | undefined]));
    };

    it('answers CORS preflights on the gateway routes: the cors filter before the router, a CorsPolicy on /v1 and the fallback, none on /mcp', () => {
      expect(list(hcm().http_filters).map((f) => f.name)).toEqual(['envoy.filters.http.cors', 'envoy.filters.http.router']);
      expect(get(list(rawHcm(raw()).http_filters as unknown)[0]!, 'typed_config', '@type')).toBe('type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors');
      const policies = corsPolicies();
      expect([...policies.keys()].sort()).toEqual(['fallback', 'mcp', 'v1', 'v1_safe']);
      for (const name of ['v1_safe', 'v1', 'fallback']) {
        expect(policies.get(name)?.['@type'], name).toBe('type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy');
      }
      // The MCP server answers its own preflights (MCP_ALLOWED_ORIGINS, its own methods and headers).
      expect(policies.get('mcp')).toBeUndefined();
      // A preflight of an origin not on the list goes on to the gateway, which answers it 204 without a grant.
      expect(policies.get('v1')?.forward_not_matching_preflights).toBe(true);
    });

    it("grants exactly what the gateway grants: the ConfigMap's origins and max age, the gateway's methods and headers", () => {
      const configMap = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy', 'k8s', 'configmap.yaml'), 'utf8'))
        .map((d) => d.toJS() as { kind?: string; data?: Record<string, string> })
        .find((d) => d.kind === 'ConfigMap' && d.data?.CORS_MAX_AGE_SECONDS !== undefined) as { data: Record<string, string> };
      // Read the way the gateway reads them (services/kit/config.ts).
      const gateway = loadConfig({ CORS_ALLOWED_ORIGINS: configMap.data.CORS_ALLOWED_ORIGINS, CORS_MAX_AGE_SECONDS: configMap.data.CORS_MAX_AGE_SECONDS });
      expect(gateway.CORS_ALLOWED_ORIGINS.length).toBeGreaterThan(0);
      const expected = {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy',
        allow_origin_string_match: gateway.CORS_ALLOWED_ORIGINS.map((origin) => (origin === '*' ? { safe_regex: { regex: '.*' } } : { exact: origin })),
        allow_methods: ALLOWED_METHODS,
        allow_headers: ALLOWED_REQUEST_HEADERS,
        expose_headers: EXPOSED_HEADERS,
        max_age: String(gateway.CORS_MAX_AGE_SECONDS),
        forward_not_matching_preflights: true,
      };
      for (const [name, policy] of corsPolicies()) if (name !== 'mcp') expect(policy, name).toEqual(expected);
    });

    it('a CorsPolicy with a misspelled field or a wrong value kind does not fit the schema', () => {
      const misspelled = copy();
      const route = list(get(rawHcm(misspelled), 'route_config', 'virtual_hosts', 0, 'routes'))[0]!;
      const policy = { ...(get(route, 'typed_per_filter_config', 'envoy.filters.http.cors') as Obj) };
      (route.typed_per_filter_config as Obj)['envoy.filters.http.cors'] = { ...policy, allow_origins: ['https://x.example'] };
      expect(check(misspelled).problems.join('\n')).toMatch(/allow_origins/);
      (route.typed_per_filter_config as Obj)['envoy.filters.http.cors'] = { ...policy, max_age: 600 };
      expect(check(misspelled).problems.join('\n')).toMatch(/max_age/);
    });

    it('keeps a client X-Request-Id and generates a UUID otherwise', () => {
      expect(get(hcm(), 'generate_request_id', 'value')).toBe(true);
      expect(hcm().preserve_external_request_id).toBe(true);
      const ext = get(hcm(), 'request_id_extension', 'typed_config');
      expect(typeOf(ext)).toBe('type.googleapis.com/envoy.extensions.request_id.uuid.v3.UuidRequestIdConfig');
      expect(get(ext, 'pack_trace_reason', 'value')).toBe(false); // never rewrites a client's UUID
    });

    it('writes JSON access logs to stdout with request id, method, path, status, duration, upstream host and trace id', () => {
      const logs = list(hcm().access_log).map((l) => l.typed_config as Obj);
      const file = logs.find((l) => typeOf(l).endsWith('envoy.extensions.access_loggers.file.v3.FileAccessLog'));
      expect(file?.path).toBe('/dev/stdout');
      const fields = Object.values(structToJson(get(file, 'log_format', 'json_format'))).join(' ');
      for (const op of ['%REQ(X-REQUEST-ID)%', '%REQ(:METHOD)%', 'PATH)%', '%RESPONSE_CODE%', '%DURATION%', '%UPSTREAM_HOST%', '%TRACE_ID%']) {
        expect(fields).toContain(op);
      }
    });

    it('traces with OpenTelemetry over gRPC to the otel_collector cluster (HTTP/2, port 4317)', () => {
      const provider = get(hcm(), 'tracing', 'provider') as Obj;
      expect(provider.name).toBe('envoy.tracers.opentelemetry');
      expect(typeOf(provider.typed_config)).toBe('type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig');
      expect(get(provider.typed_config, 'grpc_service', 'envoy_grpc', 'cluster_name')).toBe('otel_collector');
      const collector = clusters().get('otel_collector');
      const options = get(collector, 'typed_extension_protocol_options', 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions');
      expect(get(options, 'explicit_http_config', 'http2_protocol_options')).toBeDefined();
      expect(get(collector, 'load_assignment', 'endpoints', 0, 'lb_endpoints', 0, 'endpoint', 'address', 'socket_address', 'port_value')).toBe(4317);
    });

    it('defines every cluster it references, each with a connect timeout and matching load assignment', () => {
      for (const name of referencedClusters(hcm())) expect(clusters().has(name), `cluster ${name}`).toBe(true);
      for (const [name, cluster] of clusters()) {
        expect(seconds(cluster.connect_timeout), name).toBeGreaterThan(0);
        expect(get(cluster, 'load_assignment', 'cluster_name'), name).toBe(name);
        // Envoy finds protocol options by key: it must name the packed message
        for (const [key, options] of Object.entries((cluster.typed_extension_protocol_options ?? {}) as Obj)) {
          expect(typeOf(options), `${name} ${key}`).toBe(`type.googleapis.com/${key}`);
        }
      }
      const address = (name: string): unknown =>
        get(clusters().get(name), 'load_assignment', 'endpoints', 0, 'lb_endpoints', 0, 'endpoint', 'address', 'socket_address');
      expect(address('gateway')).toMatchObject({ address: 'gateway.expertnet.svc.cluster.local', port_value: 8080 });
      expect(address('mcp')).toMatchObject({ address: 'mcp.expertnet.svc.cluster.local', port_value: 8081 });
    });

    it('protects gateway and mcp with circuit breakers and outlier detection', () => {
      for (const name of ['gateway', 'mcp']) {
        const cluster = clusters().get(name)!;
        const thresholds = list(get(cluster, 'circuit_breakers', 'thresholds'));
        expect(thresholds.length, name).toBeGreaterThan(0);
        for (const key of ['max_connections', 'max_pending_requests', 'max_requests', 'max_retries']) {
          expect(Number(get(thresholds[0], key, 'value')), `${name} ${key}`).toBeGreaterThan(0);
        }
        expect(Number(get(cluster, 'outlier_detection', 'consecutive_5xx', 'value')), name).toBeGreaterThan(0);
        expect(seconds(get(cluster, 'outlier_detection', 'base_ejection_time')), name).toBeGreaterThan(0);
      }
    });

    it("health-checks the gateway on its admin port's /readyz", () => {
      const gateway = clusters().get('gateway')!;
      expect(get(gateway, 'health_checks', 0, 'http_health_check', 'path')).toBe('/readyz');
      const endpoints = list(get(gateway, 'load_assignment', 'endpoints')).flatMap((e) => list(e.lb_endpoints));
      expect(endpoints.length).toBeGreaterThan(0);
      for (const e of endpoints) expect(get(e, 'endpoint', 'health_check_config', 'port_value')).toBe(9090);
    });
  });
});
