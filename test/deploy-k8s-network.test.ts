// Isolation in the Kubernetes manifests (deploy/k8s/network-policy.yaml), checked offline: the
// NetworkPolicies are evaluated as the API defines them (a pod selected by a policy of a type allows
// only what some rule of that type allows; traffic needs the sender's egress and the receiver's
// ingress) over the pods of the manifests and a few outside ones (Prometheus in `monitoring`, a pod
// in `default`, the cluster DNS, an address on the internet, the database outside the cluster). The
// calls each role makes are read from the code (the clients services/<role>/ uses), so a new call
// between services fails here until its path is opened.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_ROLES, SERVICE_ROLES, type ServiceRole } from '../services/kit/config.js';
import { find, GRPC_PORTS, type Json, NAMESPACE, ofKind, root, selects } from './helpers/deploy-files.js';

interface Endpoint {
  name: string;
  namespace?: string; // a pod; an address outside the cluster has `ip` instead
  namespaceLabels?: Record<string, string>;
  labels?: Record<string, string>;
  ip?: string;
}

const pod = (role: string): Endpoint => ({ name: role, namespace: NAMESPACE, labels: find('Deployment', role).spec.template.metadata.labels });
const ENVOY = pod('envoy');
const COLLECTOR = pod('otel-collector');
const MIGRATIONS: Endpoint = { name: 'migrations', namespace: NAMESPACE, labels: find('Job', 'expertnet-migrate').spec.template.metadata.labels };
const ADMIN: Endpoint = { name: 'admin', namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': 'expertnet-api', 'app.kubernetes.io/component': 'admin' } };
const PROMETHEUS: Endpoint = { name: 'prometheus', namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } };
const STRANGER: Endpoint = { name: 'a pod in default', namespace: 'default', labels: { app: 'other' } };
const TEAM: Endpoint = { name: 'an internal team', namespace: 'team-a', namespaceLabels: { 'expertnet/grpc-clients': 'allowed' }, labels: { app: 'client' } };
const DNS: Endpoint = { name: 'kube-dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
const INTERNET: Endpoint = { name: 'the internet', ip: '203.0.113.7' };
const PRIVATE: Endpoint = { name: 'a private address', ip: '10.20.30.40' };
const DATABASE: Endpoint = { name: 'PostgreSQL/Redis outside the cluster', ip: '198.51.100.20' };

const policies = ofKind('NetworkPolicy').map((d) => d.obj);

function inCidr(ip: string, cidr: string): boolean {
  const toInt = (a: string) => a.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
  const [base, bits] = cidr.split('/');
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return (toInt(ip) & mask) === (toInt(base!) & mask);
}

/** A label selector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist); empty selects all. */
function selectorMatches(selector: Json | undefined, labels: Record<string, string>): boolean {
  if (!selects(selector?.matchLabels ?? {}, labels)) return false;
  return ((selector?.matchExpressions ?? []) as Json[]).every((e) => {
    const value = labels[e.key];
    if (e.operator === 'In') return value !== undefined && (e.values as string[]).includes(value);
    if (e.operator === 'NotIn') return value === undefined || !(e.values as string[]).includes(value);
    if (e.operator === 'Exists') return value !== undefined;
    return value === undefined;
  });
}

function peerMatches(peer: Json, policyNamespace: string, other: Endpoint): boolean {
  if (peer.ipBlock) return !!other.ip && inCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c: string) => inCidr(other.ip!, c));
  if (!other.namespace) return false;
  const namespaceOk = peer.namespaceSelector
    ? selectorMatches(peer.namespaceSelector, { ...other.namespaceLabels, 'kubernetes.io/metadata.name': other.namespace })
    : other.namespace === policyNamespace;
  return namespaceOk && selectorMatches(peer.podSelector, other.labels ?? {});
}

function ruleAllows(rule: Json, peers: Json[] | undefined, policyNamespace: string, other: Endpoint, port: number, protocol: string): boolean {
  const portOk = !rule.ports || (rule.ports as Json[]).some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || p.port === port));
  return portOk && (!peers || peers.some((peer) => peerMatches(peer, policyNamespace, other)));
}

/** Whether `side` (the sender for Egress, the receiver for Ingress) lets the traffic through. */
function sideAllows(kind: 'Ingress' | 'Egress', self: Endpoint, other: Endpoint, port: number, protocol: string): boolean {
  if (!self.namespace) return true; // outside the cluster: no policy applies
  const selecting = policies.filter(
    (p) => p.metadata.namespace === self.namespace && (p.spec.policyTypes as string[]).includes(kind) && selectorMatches(p.spec.podSelector, self.labels ?? {}),
  );
  if (selecting.length === 0) return true;
  const field = kind === 'Ingress' ? 'ingress' : 'egress';
  const peersOf = (rule: Json) => (kind === 'Ingress' ? rule.from : rule.to) as Json[] | undefined;
  return selecting.some((p) => ((p.spec[field] ?? []) as Json[]).some((rule) => ruleAllows(rule, peersOf(rule), p.metadata.namespace, other, port, protocol)));
}

const reaches = (from: Endpoint, to: Endpoint, port: number, protocol = 'TCP') => sideAllows('Egress', from, to, port, protocol) && sideAllows('Ingress', to, from, port, protocol);
const path = (from: Endpoint, to: Endpoint, port: number) => `${from.name} -> ${to.name}:${port}`;

/** The services a role's own code calls (services/<role>/, tests apart), and identity for every service (direct-callers.ts). */
function callsOf(role: ServiceRole): Set<ServiceRole> {
  const found = execFileSync('grep', ['-rhoE', '--include=*.ts', '--exclude=*.test.ts', 'clients\\.(identity|communities|search|enrichment|billing)\\b', join(root, 'services', role)], { encoding: 'utf8' });
  const calls = new Set(found.split('\n').filter(Boolean).map((m) => m.slice('clients.'.length) as ServiceRole));
  // Every service may be called with an internal team's own credential, which it asks identity about.
  calls.add('identity');
  return calls;
}

describe('deploy/k8s: NetworkPolicies', () => {
  const needed = new Map<string, Set<ServiceRole>>([
    ['gateway', new Set(SERVICE_ROLES)],
    ['mcp', new Set(SERVICE_ROLES)],
    ...SERVICE_ROLES.map((s) => [s, callsOf(s)] as const),
  ]);

  it('deny everything by default, in and out, for every pod of the namespace', () => {
    const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress);
    expect(deny?.spec.policyTypes).toEqual(expect.arrayContaining(['Ingress', 'Egress']));
    expect(reaches(STRANGER, pod('identity'), GRPC_PORTS.identity)).toBe(false);
    expect(reaches(pod('search'), pod('gateway'), 8080)).toBe(false);
  });

  it('open the edge: the internet reaches Envoy only; Envoy reaches the gateway and mcp surfaces and their health checks, and the collector', () => {
    expect(reaches(INTERNET, ENVOY, 8443)).toBe(true);
    for (const [to, ports] of [['gateway', [8080, 8082, 9090]], ['mcp', [8081, 9090]]] as const) {
      for (const port of ports) expect(reaches(ENVOY, pod(to), port), path(ENVOY, pod(to), port)).toBe(true);
      expect(reaches(INTERNET, pod(to), ports[0]), path(INTERNET, pod(to), ports[0])).toBe(false);
    }
    expect(reaches(ENVOY, COLLECTOR, 4317)).toBe(true);
    for (const service of SERVICE_ROLES) expect(reaches(ENVOY, pod(service), GRPC_PORTS[service]), `envoy -> ${service}`).toBe(false);
  });

  it('open exactly the gRPC paths the code uses: the surfaces to every service, each service to the services it calls, the admin tooling and labelled internal teams to all', () => {
    expect(needed.get('communities')).toEqual(new Set(['identity', 'search', 'enrichment']));
    for (const from of ALL_ROLES) {
      for (const to of SERVICE_ROLES) {
        const open = needed.get(from)?.has(to) ?? false;
        expect(reaches(pod(from), pod(to), GRPC_PORTS[to]), `${from} -> ${to}`).toBe(open);
      }
    }
    for (const to of SERVICE_ROLES) {
      expect(reaches(ADMIN, pod(to), GRPC_PORTS[to]), `admin -> ${to}`).toBe(true);
      // Internal teams call the public RPCs directly, from namespaces labelled for it.
      expect(reaches(TEAM, pod(to), GRPC_PORTS[to]), `team -> ${to}`).toBe(true);
      expect(reaches(TEAM, pod(to), 9090), `team -> ${to} admin`).toBe(false);
      expect(reaches(MIGRATIONS, pod(to), GRPC_PORTS[to]), `migrations -> ${to}`).toBe(false);
      expect(reaches(STRANGER, pod(to), GRPC_PORTS[to]), `default -> ${to}`).toBe(false);
    }
  });

  it('every app pod reaches DNS in kube-system, PostgreSQL, Redis and the collector; the migrations Job PostgreSQL and DNS only', () => {
    for (const role of ALL_ROLES) {
      expect(reaches(pod(role), DNS, 53, 'UDP'), `${role} dns`).toBe(true);
      expect(reaches(pod(role), DATABASE, 5432), `${role} postgres`).toBe(true);
      expect(reaches(pod(role), DATABASE, 6379), `${role} redis`).toBe(true);
      expect(reaches(pod(role), COLLECTOR, 4318), `${role} collector`).toBe(true);
    }
    expect(reaches(MIGRATIONS, DATABASE, 5432)).toBe(true);
    expect(reaches(MIGRATIONS, DNS, 53, 'UDP')).toBe(true);
    expect(reaches(MIGRATIONS, DATABASE, 6379)).toBe(false);
    expect(reaches(MIGRATIONS, INTERNET, 443)).toBe(false);
  });

  it('the internet on 443 only from enrichment (its providers), the gateway (OAuth client metadata documents) and communities (webhook deliveries); never a private range, never another port', () => {
    for (const role of ALL_ROLES) expect(reaches(pod(role), INTERNET, 443), `${role} -> internet`).toBe(role === 'enrichment' || role === 'gateway' || role === 'communities');
    expect(reaches(pod('enrichment'), INTERNET, 80)).toBe(false);
    expect(reaches(pod('enrichment'), PRIVATE, 443)).toBe(false);
    expect(reaches(pod('communities'), INTERNET, 80)).toBe(false);
    expect(reaches(pod('communities'), PRIVATE, 443)).toBe(false);
  });

  it('the admin port (/metrics) answers the monitoring namespace, and no other pod but Envoy for the surfaces it health-checks', () => {
    for (const role of ALL_ROLES) {
      expect(reaches(PROMETHEUS, pod(role), 9090), `prometheus -> ${role}`).toBe(true);
      expect(reaches(STRANGER, pod(role), 9090), `default -> ${role}`).toBe(false);
      expect(reaches(ENVOY, pod(role), 9090), `envoy -> ${role} admin`).toBe(role === 'gateway' || role === 'mcp');
      for (const other of ALL_ROLES) expect(reaches(pod(other), pod(role), 9090), `${other} -> ${role} admin`).toBe(false);
    }
    expect(reaches(PROMETHEUS, pod('gateway'), 8080)).toBe(false);
    expect(reaches(TEAM, pod('gateway'), 8080)).toBe(false);
  });
});
