// Helpers over the converted Envoy object (keys are the .proto field names; an Any keeps its fields
// inline beside "@type"; a Duration is {seconds, nanos}; a wrapper is {value}): lookups, the
// HTTP connection manager, the route a request takes, retries, the clusters referenced.
import { isObj, type Obj } from './envoy-converter.js';

export const get = (o: unknown, ...keys: (string | number)[]): unknown => {
  let cur = o;
  for (const k of keys) cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
};
export const list = (o: unknown): Obj[] => (Array.isArray(o) ? (o.filter(isObj) as Obj[]) : []);
export const seconds = (d: unknown): number | undefined =>
  isObj(d) ? Number(d.seconds ?? 0) + Number(d.nanos ?? 0) / 1e9 : undefined;
export const typeOf = (any: unknown): string => String(get(any, '@type') ?? '');
export const structToJson = (s: unknown): Obj =>
  Object.fromEntries(
    Object.entries((get(s, 'fields') as Obj | undefined) ?? {}).map(([k, v]) => [k, isObj(v) ? Object.values(v)[0] : undefined]),
  );

export const HCM = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

export function httpConnectionManagers(bootstrap: Obj): Obj[] {
  return list(get(bootstrap, 'static_resources', 'listeners'))
    .flatMap((l) => list(l.filter_chains))
    .flatMap((fc) => list(fc.filters))
    .map((f) => f.typed_config)
    .filter((tc): tc is Obj => typeOf(tc).endsWith(HCM));
}

export interface Request {
  method: string;
  path: string;
  /** The Host header; absent: a host no virtual host names (the `*` one answers). */
  host?: string;
}

/** Envoy's first-match routing, for the matchers this configuration may use (exact host names, then `*`). */
export function routeFor(hcm: Obj, req: Request): { route: Obj; vhost: Obj } | undefined {
  const vhosts = list(get(hcm, 'route_config', 'virtual_hosts'));
  const named = req.host === undefined ? undefined : vhosts.find((v) => (v.domains as string[] | undefined)?.includes(req.host!.toLowerCase()));
  const vhost = named ?? vhosts.find((v) => (v.domains as string[] | undefined)?.includes('*'));
  if (!vhost) return undefined;
  const pathOnly = req.path.split('?')[0] ?? '';
  const headers: Record<string, string> = { ':method': req.method, ':path': req.path };
  for (const route of list(vhost.routes)) {
    const match = (route.match ?? {}) as Obj;
    let pathOk: boolean;
    if (typeof match.prefix === 'string') pathOk = pathOnly.startsWith(match.prefix);
    else if (typeof match.path === 'string') pathOk = pathOnly === match.path;
    else if (typeof match.path_separated_prefix === 'string') {
      const p = match.path_separated_prefix;
      pathOk = pathOnly === p || pathOnly.startsWith(`${p}/`);
    } else if (isObj(match.safe_regex)) pathOk = fullMatch(String(match.safe_regex.regex), pathOnly);
    else throw new Error(`route ${String(route.name)}: path matcher not simulated: ${JSON.stringify(match)}`);
    if (!pathOk) continue;
    const headersOk = list(match.headers).every((h) => {
      const actual = headers[String(h.name).toLowerCase()];
      let ok: boolean;
      const sm = h.string_match as Obj | undefined;
      if (h.present_match !== undefined) ok = actual !== undefined;
      else if (!sm) throw new Error(`route ${String(route.name)}: header matcher not simulated: ${JSON.stringify(h)}`);
      else if (actual === undefined) ok = false;
      else if (typeof sm.exact === 'string') ok = actual === sm.exact;
      else if (typeof sm.prefix === 'string') ok = actual.startsWith(sm.prefix);
      else if (isObj(sm.safe_regex)) ok = fullMatch(String(sm.safe_regex.regex), actual);
      else throw new Error(`route ${String(route.name)}: string matcher not simulated: ${JSON.stringify(sm)}`);
      return h.invert_match === true ? !ok : ok;
    });
    if (headersOk) return { route, vhost };
  }
  return undefined;
}
const fullMatch = (re2: string, s: string): boolean => new RegExp(`^(?:${re2})$`).test(s);

/** The retry policy Envoy applies to a request: the route's, else the virtual host's. */
export const retryPolicyOf = (m: { route: Obj; vhost: Obj }): Obj | undefined =>
  (get(m.route, 'route', 'retry_policy') ?? get(m.route, 'route', 'retry_policy_typed_config') ?? m.vhost.retry_policy ?? m.vhost.retry_policy_typed_config) as
    | Obj
    | undefined;

/** Requests that must never be retried by the proxy, and which of them a configuration would retry. */
export function retriedUnsafeRequests(hcm: Obj): string[] {
  const unsafe = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const paths = ['/v1/search', '/v1/communities/c1/members', '/v1/me', '/mcp', '/anything'];
  return unsafe.flatMap((method) =>
    paths.filter((p) => {
      const m = routeFor(hcm, { method, path: p });
      return m !== undefined && retryPolicyOf(m) !== undefined;
    }).map((p) => `${method} ${p}`),
  );
}

/** Every cluster name a configuration points at: route actions and gRPC services, anywhere. */
export function referencedClusters(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => referencedClusters(n, out));
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'cluster' || k === 'cluster_name') && typeof v === 'string') out.add(v);
      referencedClusters(v, out);
    }
  }
  return out;
}

