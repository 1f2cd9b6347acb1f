// Derives deploy/compose/envoy.yaml (the local stack's Envoy) from envoy/envoy.yaml (the
// Kubernetes edge), so the two never drift apart: same routes, timeouts, retries, health checks,
// circuit breakers and tracing, with two differences only:
//   - the listener is plain HTTP on :8000 (no TLS certificate locally),
//   - the clusters reach the compose services by name (gateway:8080, mcp:8081, otel-collector:4317)
//     instead of <service>.expertnet.svc.cluster.local;
//   - a virtual host of its own host name (the settings web app's settings.example.org) answers
//     <first label>.localhost instead, with or without the listener's port (browsers resolve
//     *.localhost to this machine): http://settings.localhost:8000/.
// After changing envoy/envoy.yaml run `npx tsx deploy/compose/envoy-from-k8s.ts`;
// test/deploy-compose.test.ts fails while the committed file differs from what this produces.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, isSeq, parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
export const K8S_ENVOY_FILE = resolve(here, '..', '..', 'envoy', 'envoy.yaml');
export const COMPOSE_ENVOY_FILE = join(here, 'envoy.yaml');
export const COMPOSE_LISTENER_PORT = 8000;

const HEADER = `# Envoy for the local stack (deploy/compose.yaml), GENERATED from envoy/envoy.yaml by
# deploy/compose/envoy-from-k8s.ts: do not edit, change envoy/envoy.yaml and run
#   npx tsx deploy/compose/envoy-from-k8s.ts
# Differences from envoy/envoy.yaml, which targets Kubernetes:
#   - the listener is plain HTTP on :${COMPOSE_LISTENER_PORT} (no TLS locally): http://127.0.0.1:${COMPOSE_LISTENER_PORT}/v1/...
#   - the clusters reach the compose services by name (gateway:8080, mcp:8081, otel-collector:4317).
#   - the settings web app's virtual host answers settings.localhost: http://settings.localhost:${COMPOSE_LISTENER_PORT}/
`;

/** `settings.example.org` → `settings.localhost` and `settings.localhost:8000`: the same virtual host on this machine. */
export function composeDomainsOf(domain: string): string[] {
  if (domain === '*') return [domain];
  const first = /^([a-z0-9-]+)\./.exec(domain);
  if (!first) throw new Error(`envoy/envoy.yaml: virtual host domain ${domain} has no first label`);
  return [`${first[1]}.localhost`, `${first[1]}.localhost:${COMPOSE_LISTENER_PORT}`];
}

/** `gateway.expertnet.svc.cluster.local` → `gateway`: the compose service of the same name. */
export function composeHostOf(kubernetesHost: string): string {
  const match = /^([a-z0-9-]+)\.[a-z0-9-]+\.svc(\.cluster\.local)?$/.exec(kubernetesHost);
  if (!match) throw new Error(`envoy/envoy.yaml: ${kubernetesHost} is not a Kubernetes Service name`);
  return match[1]!;
}

export function composeEnvoyConfig(kubernetesConfig: string): string {
  const doc = parseDocument(kubernetesConfig);
  if (doc.errors.length > 0) throw new Error(`envoy/envoy.yaml: ${doc.errors[0]!.message}`);
  const listeners = doc.getIn(['static_resources', 'listeners']);
  if (!isSeq(listeners) || listeners.items.length !== 1) throw new Error('envoy/envoy.yaml: expected one listener');
  const listener = listeners.items[0] as YAMLMap;
  listener.set('name', 'http');
  listener.setIn(['address', 'socket_address', 'port_value'], COMPOSE_LISTENER_PORT);
  const chains = listener.get('filter_chains');
  if (!isSeq(chains)) throw new Error('envoy/envoy.yaml: the listener has no filter_chains');
  for (const chain of chains.items as YAMLMap[]) {
    chain.delete('transport_socket');
    const filters = chain.get('filters');
    if (!isSeq(filters)) continue;
    for (const filter of filters.items as YAMLMap[]) {
      if (filter.get('name') === 'envoy.filters.network.http_connection_manager') {
        filter.setIn(['typed_config', 'stat_prefix'], 'ingress_http');
        const virtualHosts = filter.getIn(['typed_config', 'route_config', 'virtual_hosts']);
        for (const virtualHost of isSeq(virtualHosts) ? (virtualHosts.items as YAMLMap[]) : []) {
          const domains = virtualHost.get('domains');
          if (!isSeq(domains)) continue;
          const local = domains.items.flatMap((d) => composeDomainsOf(String(isScalar(d) ? d.value : d)));
          const replaced = doc.createNode(local) as YAMLSeq;
          replaced.flow = true;
          virtualHost.set('domains', replaced);
        }
      }
    }
  }
  const clusters = doc.getIn(['static_resources', 'clusters']);
  if (!isSeq(clusters)) throw new Error('envoy/envoy.yaml: no clusters');
  for (const cluster of clusters.items as YAMLMap[]) {
    const endpoints = cluster.getIn(['load_assignment', 'endpoints']);
    if (!isSeq(endpoints)) continue;
    for (const group of endpoints.items as YAMLMap[]) {
      const lbEndpoints = group.get('lb_endpoints');
      if (!isSeq(lbEndpoints)) continue;
      for (const lbEndpoint of lbEndpoints.items as YAMLMap[]) {
        const address = lbEndpoint.getIn(['endpoint', 'address', 'socket_address']);
        if (!isMap(address)) continue;
        address.set('address', composeHostOf(String(address.get('address'))));
      }
    }
  }
  doc.commentBefore = null;
  return HEADER + doc.toString({ lineWidth: 0 });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(COMPOSE_ENVOY_FILE, composeEnvoyConfig(readFileSync(K8S_ENVOY_FILE, 'utf8')));
  console.log(`wrote ${COMPOSE_ENVOY_FILE}`);
}
