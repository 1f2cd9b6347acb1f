// envoy/envoy.yaml checked against Envoy's own API schema, since no Envoy binary runs here: the
// strict walker (test/helpers/envoy-converter.ts) converts the YAML, read as proto3 JSON the way
// Envoy reads it, into an envoy.config.bootstrap.v3.Bootstrap, reports every problem with its path,
// and the result survives encode/decode. Edited copies show the walker catches what it should.
import { describe, expect, it } from 'vitest';
import type { Obj } from './helpers/envoy-converter.js';
import { get, list, typeOf, HCM } from './helpers/envoy-routes.js';
import { envoySuite } from './helpers/envoy-suite.js';

describe('envoy/envoy.yaml', () => {
  const { schema, bootstrap, hcm, clusters, check, copy, rawHcm } = envoySuite();

  describe("Envoy's schema", () => {
    it('converts without unknown, deprecated or mistyped fields, and survives encode/decode as a Bootstrap', () => {
      const Bootstrap = schema().lookupType('envoy.config.bootstrap.v3.Bootstrap');
      const bytes = Bootstrap.encode(Bootstrap.fromObject(bootstrap())).finish();
      expect(bytes.length).toBeGreaterThan(1000);
      const back = Bootstrap.toObject(Bootstrap.decode(bytes), { json: true, longs: String, enums: String }) as Obj;
      // the Any payloads were packed by type, so they unpack again
      const backHcm = get(back, 'static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config');
      expect(typeOf(backHcm)).toBe(`type.googleapis.com/${HCM}`);
      expect(list(get(backHcm, 'route_config', 'virtual_hosts', 0, 'routes'))).toHaveLength(
        list(get(hcm(), 'route_config', 'virtual_hosts', 0, 'routes')).length,
      );
      expect(get(back, 'static_resources', 'clusters')).toHaveLength(clusters().size);
    });

    it('rejects a misspelled field, naming its path', () => {
      const cfg = copy();
      rawHcm(cfg).generate_request_idd = true;
      expect(check(cfg).problems).toEqual([
        'static_resources.listeners[0].filter_chains[0].filters[0].typed_config.generate_request_idd: unknown field of envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
      ]);
      const deep = copy();
      (get(deep, 'static_resources', 'clusters', 0, 'outlier_detection') as Obj).base_ejection_tme = '30s';
      expect(check(deep).problems).toEqual([
        'static_resources.clusters[0].outlier_detection.base_ejection_tme: unknown field of envoy.config.cluster.v3.OutlierDetection',
      ]);
    });

    it('accepts the camelCase JSON names Envoy accepts too', () => {
      const cfg = copy();
      const h = rawHcm(cfg);
      h.generateRequestId = h.generate_request_id;
      delete h.generate_request_id;
      expect(check(cfg).problems).toEqual([]);
    });

    it('rejects an @type that names no loaded message', () => {
      const cfg = copy();
      const router = list(rawHcm(cfg).http_filters)[0]!.typed_config as Obj;
      router['@type'] = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Routr';
      expect(check(cfg).problems).toEqual([
        'static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters[0].typed_config.@type: unresolvable type URL type.googleapis.com/envoy.extensions.filters.http.router.v3.Routr: no such message in the loaded Envoy schema',
      ]);
    });

    it('rejects wrong value kinds, unknown enum names, two members of a oneof, deprecated fields and broken validation rules (required, min_len, duration bounds)', () => {
      const cfg = copy();
      const h = rawHcm(cfg);
      const routes = list(get(h, 'route_config', 'virtual_hosts', 0, 'routes'));
      (routes[0]!.route as Obj).timeout = 35; // a Duration is a string in JSON
      (routes[1]!.match as Obj).prefix = '/v1'; // beside path_separated_prefix
      h.codec_type = 'HTTP4';
      (get(h, 'route_config', 'virtual_hosts', 0) as Obj).cors = {}; // deprecated in v3
      const cluster = get(cfg, 'static_resources', 'clusters', 0) as Obj;
      cluster.name = ''; // min_len 1
      cluster.connect_timeout = '0s'; // gt 0s
      delete (get(cluster, 'health_checks', 0) as Obj).interval; // required
      delete (routes[2]!.route as Obj).cluster; // RouteAction needs one of cluster, weighted_clusters, ...
      delete h.stat_prefix; // absent string: "" fails min_len 1
      const problems = check(cfg).problems.join('\n');
      expect(problems).toContain('routes[0].route.timeout: expected a duration');
      expect(problems).toContain('routes[1].match.prefix: oneof path_specifier is already set by path_separated_prefix');
      expect(problems).toContain('typed_config.codec_type: "HTTP4" is not a value of');
      expect(problems).toContain('virtual_hosts[0].cors: deprecated field');
      expect(problems).toContain('static_resources.clusters[0].name: shorter than 1 character(s)');
      expect(problems).toContain('static_resources.clusters[0].health_checks[0].interval: required field');
      expect(problems).toContain('static_resources.clusters[0].connect_timeout: 0s violates gt 0s');
      expect(problems).toContain('routes[2].route: one of cluster, cluster_header, weighted_clusters');
      expect(problems).toContain('typed_config.stat_prefix: shorter than 1 character(s) (field absent');
    });
  });
});
