// For one describe block: envoy/envoy.yaml read and converted against Envoy's schema once, its HTTP
// connection manager and clusters at hand, and a strict check of any edited copy.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { parse } from 'yaml';
import { beforeAll, expect } from 'vitest';
import { StrictEnvoyConverter, type Obj } from './envoy-converter.js';
import { get, httpConnectionManagers, list } from './envoy-routes.js';
import { ENVOY_YAML, loadEnvoySchema } from './envoy-schema.js';

/** The converted envoy.yaml for the tests of one describe block (a problem fails them all). */
export function envoySuite() {
  let root: protobuf.Root;
  let raw: Obj;
  let bootstrap: Obj;
  let hcm: Obj;
  let clusters: Map<string, Obj>;

  const check = (json: unknown): { object: Obj | undefined; problems: string[] } => {
    const converter = new StrictEnvoyConverter(root);
    const object = converter.convert(json, 'envoy.config.bootstrap.v3.Bootstrap');
    return { object, problems: converter.problems };
  };
  const copy = (): Obj => structuredClone(raw);
  const rawHcm = (cfg: Obj): Obj =>
    get(cfg, 'static_resources', 'listeners', 0, 'filter_chains', 0, 'filters', 0, 'typed_config') as Obj;

  beforeAll(() => {
    root = loadEnvoySchema();
    raw = parse(readFileSync(ENVOY_YAML, 'utf8')) as Obj;
    const { object, problems } = check(raw);
    if (problems.length > 0) throw new Error(`envoy.yaml does not fit Envoy's schema:\n  ${problems.join('\n  ')}`);
    bootstrap = object!;
    const hcms = httpConnectionManagers(bootstrap);
    expect(hcms).toHaveLength(1);
    hcm = hcms[0]!;
    clusters = new Map(list(get(bootstrap, 'static_resources', 'clusters')).map((c) => [String(c.name), c]));
  });
  return { schema: () => root, raw: () => raw, bootstrap: () => bootstrap, hcm: () => hcm, clusters: () => clusters, check, copy, rawHcm };
}
