// The deployment files (deploy/), checked offline: no Docker engine, cluster or network here.
//
// - Kubernetes (deploy/k8s): every document is validated against the schema of its apiVersion/kind
//   twice: at run time by kubernetes-models' compiled validators (required fields, types, enums,
//   formats), and strictly by the TypeScript compiler, which type-checks each document as an object
//   literal of kubernetes-models' declared type, so an unknown or misspelt field is an excess-property
//   error. Then the invariants of this system: every role's Deployment, Service, HPA and PDB, probes,
//   pod security, secrets, gRPC addresses, the application's own config validation of each
//   container's environment, the Envoy edge and the migrations Job.
// - Compose (deploy/compose.yaml): validated against the Compose specification's JSON schema (the
//   copy shipped by the dclint package), plus the stack's invariants.
// - Dockerfile (deploy/Dockerfile): parsed by dockerfile-ast; stages, user, CMD, HEALTHCHECK, ...
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import ts from 'typescript';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { composeEnvoyConfig, COMPOSE_ENVOY_FILE, COMPOSE_LISTENER_PORT, K8S_ENVOY_FILE } from '../deploy/compose/envoy-from-k8s.js';
import { parseSeed } from '../deploy/admin/seed-schema.js';
import { ALL_ROLES, GRPC_ADDRESS_VARIABLES, loadConfig, SERVICE_ROLES, type Role, type ServiceRole } from '../services/kit/config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const deployDir = join(root, 'deploy');
const k8sDir = join(deployDir, 'k8s');
const require = createRequire(import.meta.url);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAMESPACE = 'expertnet';
const ADMIN_PORT = 9090;
const GRPC_PORTS: Record<ServiceRole, number> = { identity: 50051, communities: 50052, search: 50053, enrichment: 50054, billing: 50055 };
const SERVED_API_VERSIONS = ['v1', 'apps/v1', 'batch/v1', 'autoscaling/v2', 'policy/v1', 'networking.k8s.io/v1', 'rbac.authorization.k8s.io/v1'];
/** Names whose values are secrets: never a literal in a manifest, never in a ConfigMap. */
const SECRET_NAME = /PEPPER|PRIVATE_KEY|PUBLIC_KEY|PASSWORD|SECRET|TOKEN|DATABASE_URL|REDIS_URL|CREDENTIAL/i;
/** Stand-ins for the Secret's values: shaped as the application's config schema requires. */
const SECRET_STAND_INS: Record<string, string> = {
  DATABASE_URL: 'postgres://expertnet@db.example:5432/expertnet',
  REDIS_URL: 'redis://redis.example:6379',
  API_KEY_PEPPER: 'x'.repeat(43),
  CALLER_TOKEN_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nstand-in\n-----END PRIVATE KEY-----\n',
  CALLER_TOKEN_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nstand-in\n-----END PUBLIC KEY-----\n',
};

// ---- loading ---------------------------------------------------------------------------------------

interface K8sDoc {
  file: string;
  index: number;
  obj: Json;
}

function readYamlDocuments(file: string): { docs: Json[]; problems: string[] } {
  const parsed = parseAllDocuments(readFileSync(file, 'utf8'), { prettyErrors: true });
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const problems = list.flatMap((d) => [...d.errors, ...d.warnings].map((e) => `${file}: ${e.message}`));
  const docs = list.map((d) => d.toJS() as Json).filter((d) => d !== null && d !== undefined);
  return { docs, problems };
}

const manifestFiles = readdirSync(k8sDir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml').sort();
const loaded = manifestFiles.map((file) => ({ file, ...readYamlDocuments(join(k8sDir, file)) }));
const k8sDocs: K8sDoc[] = loaded.flatMap(({ file, docs }) => docs.map((obj, index) => ({ file, index, obj })));
const kustomization = parseYaml(readFileSync(join(k8sDir, 'kustomization.yaml'), 'utf8')) as Json;

const label = (d: K8sDoc) => `${d.file}#${d.index} ${d.obj.kind}/${d.obj.metadata?.name}`;
const ofKind = (kind: string) => k8sDocs.filter((d) => d.obj.kind === kind);
function find(kind: string, name: string): Json {
  const doc = k8sDocs.find((d) => d.obj.kind === kind && d.obj.metadata?.name === name);
  if (!doc) throw new Error(`no ${kind} named ${name} in deploy/k8s`);
  return doc.obj;
}
const configMapData = (name: string): Record<string, string> => find('ConfigMap', name).data ?? {};
const podTemplates = () =>
  k8sDocs
    .filter((d) => ['Deployment', 'Job', 'StatefulSet', 'DaemonSet'].includes(d.obj.kind))
    .map((d) => ({ doc: d, spec: d.obj.spec.template.spec as Json }));
const allContainers = (pod: Json): Json[] => [...(pod.initContainers ?? []), ...(pod.containers ?? [])];

/** `apps/v1` + `Deployment` → the kubernetes-models module path (core group: `v1`). */
const modelPath = (apiVersion: string, kind: string) => `kubernetes-models/${apiVersion}/${kind}`;

// ---- schema validation helpers ---------------------------------------------------------------------

/** kubernetes-models' compiled validator for the document's apiVersion/kind: the error text, or null. */
function runtimeSchemaError(obj: Json): string | null {
  let Model: (new (data: Json) => { validate(): void }) | undefined;
  try {
    Model = (require(modelPath(obj.apiVersion, obj.kind)) as Record<string, typeof Model>)[obj.kind];
  } catch {
    Model = undefined;
  }
  if (!Model) return `no Kubernetes schema for ${obj.apiVersion} ${obj.kind}`;
  try {
    new Model(obj).validate();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Type-checks each object as a literal of kubernetes-models' declared interface for its kind: an
 * unknown (or misspelt) field is an excess property, a wrong type or a missing required field a
 * type error. Returns the errors per object index.
 */
function strictSchemaErrors(objects: Json[]): Map<number, string[]> {
  const virtualFile = join(root, 'test', '__deploy_k8s_strict__.ts');
  const imports = new Map<string, string>();
  const lines: string[] = [];
  const lineOf: number[] = [];
  objects.forEach((obj, i) => {
    const typeName = `T${imports.size}`;
    const key = `${obj.apiVersion}/${obj.kind}`;
    if (!imports.has(key)) imports.set(key, `import type { I${obj.kind} as ${typeName} } from '${modelPath(obj.apiVersion, obj.kind)}';`);
    const alias = imports.get(key)!.match(/ as (T\d+) /)![1];
    lineOf.push(i);
    lines.push(`export const doc${i}: ${alias} = ${JSON.stringify(obj)};`);
  });
  const header = [...imports.values()];
  const source = [...header, ...lines].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    resolve(name) === virtualFile ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => resolve(name) === virtualFile || fileExists(name);
  const program = ts.createProgram([virtualFile], options, host);
  const sourceFile = program.getSourceFile(virtualFile)!;
  const errors = new Map<number, string[]>();
  for (const diagnostic of [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const line = diagnostic.start === undefined ? -1 : sourceFile.getLineAndCharacterOfPosition(diagnostic.start).line;
    const index = line - header.length;
    const key = index >= 0 && index < lineOf.length ? lineOf[index]! : -1;
    errors.set(key, [...(errors.get(key) ?? []), message]);
  }
  return errors;
}

// ---- effective environment ------------------------------------------------------------------------

/** A container's environment as the kubelet builds it, with stand-ins for the Secret's values. */
function effectiveEnv(container: Json): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, configMapData(source.configMapRef.name));
    if (source.secretRef) throw new Error('envFrom secretRef hides which keys a pod needs: use secretKeyRef');
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) env[entry.name] = String(entry.value);
    else if (entry.valueFrom?.secretKeyRef) env[entry.name] = SECRET_STAND_INS[entry.valueFrom.secretKeyRef.key] ?? 'stand-in';
    else if (entry.valueFrom?.configMapKeyRef) env[entry.name] = configMapData(entry.valueFrom.configMapKeyRef.name)[entry.valueFrom.configMapKeyRef.key]!;
  }
  return env;
}

function appContainer(role: string): Json {
  const deployment = find('Deployment', role);
  const container = (deployment.spec.template.spec.containers as Json[]).find((c) => c.name === role);
  if (!container) throw new Error(`Deployment ${role} has no container named ${role}`);
  return container;
}

function resolvePort(container: Json, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  return (container.ports as Json[] | undefined)?.find((p) => p.name === port)?.containerPort;
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

// ===================================================================================================

describe('deploy/k8s: Kubernetes manifests', () => {
  it('parse as YAML without errors or warnings, every document a Kubernetes object', () => {
    expect(loaded.flatMap((l) => l.problems)).toEqual([]);
    expect(k8sDocs.length).toBeGreaterThan(20);
    for (const d of k8sDocs) {
      expect(typeof d.obj.apiVersion, label(d)).toBe('string');
      expect(typeof d.obj.kind, label(d)).toBe('string');
      expect(d.obj.metadata?.name, label(d)).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
      // Only API versions current clusters serve (kubernetes-models also knows removed beta APIs).
      expect(SERVED_API_VERSIONS, label(d)).toContain(d.obj.apiVersion);
    }
  });

  it('every document validates against the Kubernetes schema of its apiVersion/kind (required fields, types, enums)', () => {
    const failures = k8sDocs.map((d) => [label(d), runtimeSchemaError(d.obj)] as const).filter(([, e]) => e !== null);
    expect(failures).toEqual([]);
  });

  it('no document has a field unknown to its kind, a wrong type or a missing required field (strict, TypeScript)', () => {
    const errors = strictSchemaErrors(k8sDocs.map((d) => d.obj));
    const failures = [...errors].map(([i, messages]) => `${i >= 0 ? label(k8sDocs[i]!) : '(setup)'}: ${messages.join(' | ')}`);
    expect(failures).toEqual([]);
  });

  it('the validators catch what they are meant to catch', () => {
    const deployment = structuredClone(find('Deployment', 'gateway'));
    const misspelt = structuredClone(deployment);
    misspelt.spec.template.spec.containers[0].readynessProbe = misspelt.spec.template.spec.containers[0].readinessProbe;
    const unknownTopLevel = { ...structuredClone(find('Service', 'identity')), extra: true };
    const wrongType = structuredClone(deployment);
    wrongType.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    const missingRequired = structuredClone(deployment);
    delete missingRequired.spec.selector;

    const strict = strictSchemaErrors([misspelt, unknownTopLevel, wrongType, missingRequired, deployment]);
    expect(strict.get(0)?.join(' ')).toMatch(/readynessProbe/);
    expect(strict.get(1)?.join(' ')).toMatch(/extra/);
    expect(strict.get(2)?.join(' ')).toMatch(/string/);
    expect(strict.get(3)?.join(' ')).toMatch(/selector/);
    expect(strict.has(4)).toBe(false);
    expect(runtimeSchemaError(wrongType)).toMatch(/containerPort/);
    expect(runtimeSchemaError(missingRequired)).toMatch(/selector/);
    expect(runtimeSchemaError({ apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } })).toMatch(/no Kubernetes schema/);
  });

  it('everything lives in the expertnet namespace, which enforces the restricted Pod Security Standard', () => {
    const namespace = find('Namespace', NAMESPACE);
    expect(namespace.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const d of k8sDocs.filter((x) => x.obj.kind !== 'Namespace')) expect(d.obj.metadata.namespace, label(d)).toBe(NAMESPACE);
    expect(kustomization.namespace).toBe(NAMESPACE);
  });

  it('kustomization.yaml lists every manifest file exactly once, and its generator files exist', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['apiVersion', 'kind', 'resources'],
      properties: {
        apiVersion: { const: 'kustomize.config.k8s.io/v1beta1' },
        kind: { const: 'Kustomization' },
        namespace: { type: 'string' },
        labels: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['pairs'],
            properties: {
              pairs: { type: 'object', additionalProperties: { type: 'string' } },
              includeSelectors: { type: 'boolean' },
              includeTemplates: { type: 'boolean' },
            },
          },
        },
        resources: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        configMapGenerator: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: {
              name: { type: 'string' },
              files: { type: 'array', items: { type: 'string' } },
              literals: { type: 'array', items: { type: 'string' } },
              options: { type: 'object' },
            },
          },
        },
        images: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: { name: { type: 'string' }, newName: { type: 'string' }, newTag: { type: 'string' }, digest: { type: 'string' } },
          },
        },
      },
    };
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect(validate(kustomization) ? [] : validate.errors).toEqual([]);
    expect([...(kustomization.resources as string[])].sort()).toEqual(manifestFiles);
    for (const generator of kustomization.configMapGenerator ?? []) {
      for (const entry of generator.files ?? []) {
        const path = String(entry).split('=').pop()!;
        expect(existsSync(join(k8sDir, path)), `${generator.name}: ${path}`).toBe(true);
      }
    }
    // Every container image built here is the one the kustomization retags.
    const imageNames = new Set((kustomization.images as Json[]).map((i) => i.name));
    for (const { doc, spec } of podTemplates()) {
      for (const c of allContainers(spec)) {
        const name = String(c.image).split(':')[0]!;
        if (!name.includes('/')) expect(imageNames.has(name), `${label(doc)} ${c.image}`).toBe(true);
      }
    }
  });

  it('every role has a Deployment (ROLES set), a Service, an autoscaling/v2 CPU HPA and a policy/v1 PDB that select its pods', () => {
    for (const role of ALL_ROLES) {
      const deployment = find('Deployment', role);
      const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
      expect(selects(deployment.spec.selector.matchLabels, podLabels), role).toBe(true);
      // The HPA owns the replica count: a replicas field would reset it on every apply.
      expect(deployment.spec.replicas, role).toBeUndefined();
      const env = effectiveEnv(appContainer(role));
      expect(env.ROLES, role).toBe(role);

      const service = find('Service', role);
      expect(selects(service.spec.selector, podLabels), `Service ${role}`).toBe(true);
      // A Service must select this role's pods only.
      for (const other of ALL_ROLES.filter((r) => r !== role)) {
        expect(selects(service.spec.selector, find('Deployment', other).spec.template.metadata.labels), `Service ${role} vs ${other}`).toBe(false);
      }
      const container = appContainer(role);
      for (const port of service.spec.ports as Json[]) {
        expect(resolvePort(container, port.targetPort ?? port.port), `Service ${role} port ${port.name}`).toBeDefined();
      }
      const expected = (SERVICE_ROLES as readonly string[]).includes(role) ? GRPC_PORTS[role as ServiceRole] : role === 'gateway' ? 8080 : 8081;
      expect((service.spec.ports as Json[]).map((p) => p.port), `Service ${role}`).toContain(expected);

      const hpa = find('HorizontalPodAutoscaler', role);
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: role });
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      expect(hpa.spec.metrics).toContainEqual(expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }));

      const pdb = find('PodDisruptionBudget', role);
      expect(pdb.apiVersion).toBe('policy/v1');
      expect(selects(pdb.spec.selector.matchLabels, podLabels), `PDB ${role}`).toBe(true);
      // Never a budget that blocks every eviction.
      expect(pdb.spec.maxUnavailable ?? (hpa.spec.minReplicas > pdb.spec.minAvailable ? 1 : 0), `PDB ${role}`).toBeGreaterThanOrEqual(1);
    }
  });

  it('probes: liveness GET /healthz and readiness GET /readyz on the admin port 9090', () => {
    for (const role of ALL_ROLES) {
      const container = appContainer(role);
      const env = effectiveEnv(container);
      expect(Number(env.ADMIN_PORT ?? 9090), role).toBe(ADMIN_PORT);
      expect(container.ports, role).toContainEqual(expect.objectContaining({ containerPort: ADMIN_PORT }));
      const probe = (name: string) => container[name]?.httpGet as Json | undefined;
      expect(probe('livenessProbe')?.path, role).toBe('/healthz');
      expect(resolvePort(container, probe('livenessProbe')!.port), role).toBe(ADMIN_PORT);
      expect(probe('readinessProbe')?.path, role).toBe('/readyz');
      expect(resolvePort(container, probe('readinessProbe')!.port), role).toBe(ADMIN_PORT);
      if (container.startupProbe) expect(resolvePort(container, container.startupProbe.httpGet.port), role).toBe(ADMIN_PORT);
    }
  });

  it('every pod runs as non-root with a read-only root filesystem, no privilege escalation, all capabilities dropped, /tmp on an emptyDir, and resource requests and limits', () => {
    const templates = podTemplates();
    expect(templates.length).toBeGreaterThanOrEqual(ALL_ROLES.length + 1);
    for (const { doc, spec } of templates) {
      const where = label(doc);
      expect(spec.securityContext?.runAsNonRoot, where).toBe(true);
      expect(spec.securityContext?.runAsUser, where).toBeGreaterThan(0);
      expect(spec.securityContext?.seccompProfile?.type, where).toBe('RuntimeDefault');
      expect(spec.hostNetwork ?? false, where).toBe(false);
      expect(spec.automountServiceAccountToken, where).toBe(false);
      const volumes = new Map((spec.volumes as Json[] | undefined ?? []).map((v) => [v.name, v]));
      for (const c of allContainers(spec)) {
        const at = `${where} container ${c.name}`;
        expect(c.securityContext?.runAsUser ?? spec.securityContext.runAsUser, at).not.toBe(0);
        expect(c.securityContext?.allowPrivilegeEscalation, at).toBe(false);
        expect(c.securityContext?.readOnlyRootFilesystem, at).toBe(true);
        expect(c.securityContext?.privileged ?? false, at).toBe(false);
        expect(c.securityContext?.capabilities?.drop, at).toContain('ALL');
        expect(c.securityContext?.capabilities?.add ?? [], at).toEqual([]);
        for (const kind of ['requests', 'limits']) {
          expect(c.resources?.[kind]?.cpu, `${at} ${kind}.cpu`).toBeDefined();
          expect(c.resources?.[kind]?.memory, `${at} ${kind}.memory`).toBeDefined();
        }
        for (const mount of c.volumeMounts ?? []) expect(volumes.has(mount.name), `${at} mount ${mount.name}`).toBe(true);
      }
      // Node processes (tsx's compile cache) and Envoy need a writable /tmp.
      for (const c of spec.containers as Json[]) {
        if (String(c.image).startsWith('otel/')) continue; // the collector writes nothing
        const tmp = (c.volumeMounts as Json[] | undefined)?.find((m) => m.mountPath === '/tmp');
        expect(tmp, `${where} container ${c.name}: /tmp`).toBeDefined();
        expect(volumes.get(tmp!.name)?.emptyDir, `${where} /tmp is an emptyDir`).toBeDefined();
      }
      // DATA_DIR, where the application may write, is a writable emptyDir.
      for (const c of (spec.containers as Json[]).filter((x) => String(x.image).startsWith('expertnet-api'))) {
        const dataDir = effectiveEnv(c).DATA_DIR;
        const mount = (c.volumeMounts as Json[]).find((m) => m.mountPath === dataDir);
        expect(mount && volumes.get(mount.name)?.emptyDir, `${where}: DATA_DIR ${dataDir} on an emptyDir`).toBeTruthy();
      }
    }
  });

  it('no secret value is committed: Secrets carry no data, secret-like variables never have a literal value, ConfigMaps hold no secret-like keys', () => {
    for (const d of ofKind('Secret')) {
      for (const field of ['data', 'stringData']) {
        const values = Object.values((d.obj[field] ?? {}) as Record<string, string>).filter((v) => v !== '' && v !== null);
        expect(values, `${label(d)} ${field}`).toEqual([]);
      }
    }
    for (const d of ofKind('ConfigMap')) {
      for (const key of Object.keys(d.obj.data ?? {})) expect(key, `${label(d)} key ${key}`).not.toMatch(SECRET_NAME);
      // No PEM block or credentials in a URL anywhere in a ConfigMap.
      for (const value of Object.values((d.obj.data ?? {}) as Record<string, string>)) {
        expect(value, label(d)).not.toMatch(/-----BEGIN|:\/\/[^/\s:@]+:[^/\s@]+@/);
      }
    }
    for (const { doc, spec } of podTemplates()) {
      for (const c of allContainers(spec)) {
        for (const entry of c.env ?? []) {
          if (SECRET_NAME.test(entry.name)) expect(entry.value, `${label(doc)} ${c.name} ${entry.name}`).toBeUndefined();
        }
      }
    }
  });

  it('secret references name Secrets declared in secret.yaml (or the documented edge TLS Secret) and their declared keys', () => {
    const declared = new Map(
      ofKind('Secret').map((d) => {
        const annotations = (d.obj.metadata.annotations ?? {}) as Record<string, string>;
        const keys = [annotations['expertnet/required-keys'], annotations['expertnet/optional-keys']].filter(Boolean).join(',');
        return [d.obj.metadata.name as string, new Set(keys.split(',').filter(Boolean))];
      }),
    );
    expect(declared.get('expertnet-secrets')).toEqual(new Set(Object.keys(SECRET_STAND_INS)));
    const readme = readFileSync(join(deployDir, 'README.md'), 'utf8');
    const referenced = new Set<string>();
    for (const { doc, spec } of podTemplates()) {
      for (const c of allContainers(spec)) {
        for (const entry of c.env ?? []) {
          const ref = entry.valueFrom?.secretKeyRef;
          if (!ref) continue;
          referenced.add(ref.name);
          expect(declared.get(ref.name)?.has(ref.key), `${label(doc)} ${entry.name} -> ${ref.name}/${ref.key}`).toBe(true);
          // A missing key must stop the pod, not let it generate secrets of its own.
          expect(ref.optional ?? false, `${label(doc)} ${entry.name}`).toBe(false);
        }
      }
      for (const volume of spec.volumes ?? []) {
        if (!volume.secret) continue;
        referenced.add(volume.secret.secretName);
        if (!declared.has(volume.secret.secretName)) {
          // Created outside this repository (cert-manager, kubectl): the README says how.
          expect(readme, `${label(doc)} volume ${volume.name}`).toContain(volume.secret.secretName);
        }
      }
    }
    expect(referenced).toContain('expertnet-secrets');
    expect(referenced).toContain('expertnet-edge-tls');
  });

  it("gRPC addresses: the ConfigMap names each service's Service and port; each service listens on 0.0.0.0 at that port", () => {
    const config = configMapData('expertnet-config');
    for (const service of SERVICE_ROLES) {
      const variable = GRPC_ADDRESS_VARIABLES[service];
      const match = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local:(\d+)$/.exec(config[variable] ?? '');
      expect(match, `${variable}=${config[variable]}`).not.toBeNull();
      const [, serviceName, namespace, port] = match!;
      expect(namespace).toBe(NAMESPACE);
      expect(serviceName).toBe(service);
      expect(Number(port)).toBe(GRPC_PORTS[service]);
      const svc = find('Service', serviceName!);
      const servicePort = (svc.spec.ports as Json[]).find((p) => p.port === Number(port));
      expect(servicePort, `Service ${serviceName} port ${port}`).toBeDefined();
      const own = appContainer(service);
      expect(resolvePort(own, servicePort!.targetPort ?? servicePort!.port)).toBe(Number(port));
      // The service's own process binds the port on every interface of its pod ...
      expect(effectiveEnv(own)[variable]).toBe(`0.0.0.0:${port}`);
      // ... and every other role dials the Service.
      for (const role of ALL_ROLES.filter((r) => r !== service)) expect(effectiveEnv(appContainer(role))[variable], `${role} ${variable}`).toBe(config[variable]);
    }
  });

  it("each container's environment passes the application's own configuration check (services/kit/config.ts)", () => {
    for (const role of ALL_ROLES) {
      const config = loadConfig(effectiveEnv(appContainer(role)));
      expect(config.ROLES).toEqual([role as Role]);
      expect(config.HOST).toBe('0.0.0.0');
      expect(config.ADMIN_PORT).toBe(ADMIN_PORT);
      expect(config.DATABASE_URL ?? (role === 'mcp' ? 'not needed' : undefined), role).toBeDefined();
      expect(config.API_KEY_PEPPER && config.CALLER_TOKEN_PRIVATE_KEY && config.CALLER_TOKEN_PUBLIC_KEY, role).toBeTruthy();
    }
    expect(loadConfig(effectiveEnv(appContainer('gateway'))).REDIS_URL).toBeDefined();
    const job = find('Job', 'expertnet-migrate');
    expect(loadConfig(effectiveEnv(job.spec.template.spec.containers[0])).DATABASE_URL).toBeDefined();
  });

  it('the gateway starts from an empty seed file (no demo data or demo key in a cluster)', () => {
    const container = appContainer('gateway');
    const seedFile = effectiveEnv(container).SEED_FILE!;
    expect(seedFile).toBeDefined();
    const mount = (container.volumeMounts as Json[]).find((m) => seedFile.startsWith(`${m.mountPath}/`));
    expect(mount).toBeDefined();
    const volume = (find('Deployment', 'gateway').spec.template.spec.volumes as Json[]).find((v) => v.name === mount!.name);
    const data = configMapData(volume!.configMap.name);
    const content = data[posix.basename(seedFile)]!;
    expect(parseSeed(JSON.parse(content))).toMatchObject({ users: [], keys: [] });
  });

  it('the migrations Job runs deploy/launcher/migrate.ts before the rollout', () => {
    const job = find('Job', 'expertnet-migrate');
    const container = job.spec.template.spec.containers[0];
    expect(container.command).toEqual(['node', '--import', 'tsx', 'deploy/launcher/migrate.ts']);
    expect(existsSync(join(root, 'deploy', 'launcher', 'migrate.ts'))).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.migrate).toContain('deploy/launcher/migrate.ts');
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    // Argo CD: a Sync hook in a wave after what it reads and before the Deployments (wave 0).
    const wave = (obj: Json) => Number(obj.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? 0);
    expect(job.metadata.annotations['argocd.argoproj.io/hook']).toBe('Sync');
    expect(job.metadata.annotations['argocd.argoproj.io/hook-delete-policy']).toBe('BeforeHookCreation');
    expect(wave(job)).toBeLessThan(0);
    for (const role of ALL_ROLES) expect(wave(find('Deployment', role))).toBeGreaterThan(wave(job));
    // Plain kubectl: everything the Job needs carries the pre-rollout label (deploy/README.md).
    const preRollout = (obj: Json) => obj.metadata.labels?.['expertnet/phase'] === 'pre-rollout';
    expect(preRollout(job)).toBe(true);
    for (const source of container.envFrom) expect(preRollout(find('ConfigMap', source.configMapRef.name))).toBe(true);
    for (const entry of container.env) {
      if (entry.valueFrom?.secretKeyRef) expect(preRollout(find('Secret', entry.valueFrom.secretKeyRef.name))).toBe(true);
    }
    expect(preRollout(find('Namespace', NAMESPACE))).toBe(true);
    for (const dependency of [...ofKind('ConfigMap'), ...ofKind('Secret')].filter((d) => preRollout(d.obj))) expect(wave(dependency.obj)).toBeLessThan(wave(job));
  });

  describe('the Envoy edge', () => {
    const envoy = parseYaml(readFileSync(K8S_ENVOY_FILE, 'utf8')) as Json;
    const deployment = find('Deployment', 'envoy');
    const pod = deployment.spec.template.spec as Json;
    const container = (pod.containers as Json[]).find((c) => c.name === 'envoy')!;
    const mounts = container.volumeMounts as Json[];
    const volumes = new Map((pod.volumes as Json[]).map((v) => [v.name, v]));

    it('mounts envoy/envoy.yaml from the generated ConfigMap and runs it', () => {
      const generator = (kustomization.configMapGenerator as Json[]).find((g) => (g.files as string[]).some((f) => f.endsWith('envoy/envoy.yaml')));
      expect(generator).toBeDefined();
      const [key, path] = (generator!.files as string[]).find((f) => f.endsWith('envoy/envoy.yaml'))!.split('=');
      expect(resolve(k8sDir, path!)).toBe(K8S_ENVOY_FILE);
      const configVolume = [...volumes.values()].find((v) => v.configMap?.name === generator!.name);
      expect(configVolume).toBeDefined();
      const configMount = mounts.find((m) => m.name === configVolume!.name)!;
      const args = [...(container.command ?? []), ...(container.args ?? [])] as string[];
      expect(args[args.indexOf('--config-path') + 1]).toBe(`${configMount.mountPath}/${key}`);
    });

    it("reads its TLS certificate from the mounted kubernetes.io/tls Secret's keys", () => {
      const filenames = JSON.stringify(envoy.static_resources.listeners).match(/"filename":"[^"]+"/g)?.map((m) => m.slice(12, -1)) ?? [];
      expect(filenames.length).toBeGreaterThan(0);
      for (const file of filenames) {
        const mount = mounts.find((m) => file.startsWith(`${m.mountPath}/`));
        expect(mount, file).toBeDefined();
        expect(volumes.get(mount!.name)?.secret?.secretName, file).toBe('expertnet-edge-tls');
        expect(['tls.crt', 'tls.key']).toContain(posix.basename(file));
      }
    });

    it('the LoadBalancer Service takes 443 to the port Envoy listens on; probes avoid the loopback-only admin port', () => {
      const service = find('Service', 'envoy');
      expect(service.spec.type).toBe('LoadBalancer');
      expect(selects(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
      const port = (service.spec.ports as Json[]).find((p) => p.port === 443)!;
      expect(port).toBeDefined();
      const listenerPorts = (envoy.static_resources.listeners as Json[]).map((l) => l.address.socket_address.port_value);
      expect(listenerPorts).toContain(resolvePort(container, port.targetPort));
      const adminPort = envoy.admin?.address?.socket_address?.port_value;
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const target = container[probe]?.tcpSocket?.port ?? container[probe]?.httpGet?.port;
        expect(target, probe).toBeDefined();
        expect(resolvePort(container, target), probe).not.toBe(adminPort);
      }
    });

    it("its clusters reach existing Services on their ports (headless for the app's replicas, so Envoy balances and health-checks each)", () => {
      for (const cluster of envoy.static_resources.clusters as Json[]) {
        for (const group of cluster.load_assignment.endpoints as Json[]) {
          for (const lbEndpoint of group.lb_endpoints as Json[]) {
            const { address, port_value: port } = lbEndpoint.endpoint.address.socket_address;
            const match = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local$/.exec(address);
            expect(match, `${cluster.name}: ${address}`).not.toBeNull();
            expect(match![2]).toBe(NAMESPACE);
            const service = find('Service', match![1]!);
            expect((service.spec.ports as Json[]).map((p) => p.port), `${cluster.name}`).toContain(port);
            const target = k8sDocs.find((d) => d.obj.kind === 'Deployment' && selects(service.spec.selector, d.obj.spec.template.metadata.labels))!.obj;
            const targetContainer = target.spec.template.spec.containers[0];
            const healthPort = lbEndpoint.endpoint.health_check_config?.port_value;
            if (healthPort) expect(targetContainer.ports, `${cluster.name} health port`).toContainEqual(expect.objectContaining({ containerPort: healthPort }));
            if (String(targetContainer.image).startsWith('expertnet-api')) expect(service.spec.clusterIP, `${cluster.name}: Service ${service.metadata.name}`).toBe('None');
          }
        }
        for (const check of cluster.health_checks ?? []) {
          if (check.http_health_check) expect(check.http_health_check.path).toBe('/readyz');
        }
      }
    });
  });

  it('the OpenTelemetry collector config binds OTLP on every interface and its pipelines use defined components', () => {
    checkCollectorConfig(parseYaml(configMapData('otel-collector-config')['config.yaml']!) as Json);
    expect(configMapData('expertnet-config').OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://otel-collector.${NAMESPACE}.svc.cluster.local:4318`);
  });
});

function checkCollectorConfig(config: Json): void {
  expect(config.receivers.otlp.protocols.grpc.endpoint).toBe('0.0.0.0:4317');
  expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
  for (const [name, pipeline] of Object.entries(config.service.pipelines as Record<string, Json>)) {
    for (const kind of ['receivers', 'processors', 'exporters']) {
      for (const component of pipeline[kind] ?? []) expect(config[kind]?.[component], `${name}: ${kind} ${component}`).toBeDefined();
    }
  }
  for (const extension of config.service.extensions ?? []) expect(config.extensions?.[extension]).toBeDefined();
}

// ===================================================================================================

describe('deploy/compose.yaml', () => {
  const composeFile = join(deployDir, 'compose.yaml');
  const source = readFileSync(composeFile, 'utf8');
  // Compose resolves YAML merge keys (<<) before validating; so do we.
  const compose = parseYaml(source, { merge: true }) as Json;
  const services = compose.services as Record<string, Json>;

  function compileComposeSchema() {
    const schemaFile = join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Json;
    delete schema.$schema; // draft-07, Ajv's default; the https spelling is not a registered meta-schema id
    return new Ajv({ allErrors: true, strict: false }).compile(schema);
  }
  const validateCompose = compileComposeSchema();

  it('validates against the Compose specification JSON schema', () => {
    expect(validateCompose(compose) ? [] : validateCompose.errors).toEqual([]);
    // The schema is strict about service keys: a misspelt one fails.
    const broken = structuredClone(compose);
    broken.services.gateway.helthcheck = broken.services.gateway.healthcheck;
    expect(validateCompose(broken)).toBe(false);
  });

  it('runs every role as a service of the image built from deploy/Dockerfile, with ROLES set and a readiness healthcheck', () => {
    for (const role of ALL_ROLES) {
      const service = services[role];
      expect(service, role).toBeDefined();
      expect(service!.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
      expect(resolve(deployDir, service!.build.context, service!.build.dockerfile)).toBe(join(deployDir, 'Dockerfile'));
      expect(service!.environment.ROLES).toBe(role);
      expect(service!.healthcheck?.test?.join(' '), role).toContain(`:${ADMIN_PORT}/readyz`);
      expect(service!.read_only, role).toBe(true);
      expect(service!.tmpfs, role).toContain('/tmp');
    }
    expect(services.postgres?.image).toBe('postgres:15');
    expect(services.redis?.image).toBe('redis:7');
    expect(services.envoy?.image).toMatch(/^envoyproxy\/envoy:/);
    expect(services['otel-collector']?.image).toMatch(/^otel\/opentelemetry-collector:/);
  });

  it('depends_on: known services; service_healthy only on services with a healthcheck; service_completed_successfully only on one-shots', () => {
    const hasHealthcheck = (name: string) => Boolean(services[name]?.healthcheck?.test) && !services[name]?.healthcheck?.disable;
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, spec] of Object.entries((service.depends_on ?? {}) as Record<string, Json>)) {
        expect(services[dependency], `${name} -> ${dependency}`).toBeDefined();
        if (spec.condition === 'service_healthy') expect(hasHealthcheck(dependency), `${name} -> ${dependency}`).toBe(true);
        if (spec.condition === 'service_completed_successfully') expect(services[dependency]!.restart, `${name} -> ${dependency}`).toBe('no');
      }
    }
    // The one-shot migrate runs `npm run migrate`'s script, then creates the shared secrets; every role waits for it.
    expect(services.migrate!.command.join(' ')).toContain('deploy/launcher/migrate.ts');
    expect(services.migrate!.command.join(' ')).toContain('deploy/compose/init-secrets.ts');
    for (const role of ALL_ROLES) expect(services[role]!.depends_on.migrate.condition).toBe('service_completed_successfully');
    for (const service of SERVICE_ROLES) expect(services.gateway!.depends_on[service]?.condition).toBe('service_healthy');
  });

  it('the files it mounts exist, and the processes share one DATA_DIR volume', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of (service.volumes ?? []) as string[]) {
        const [hostPath] = volume.split(':');
        if (hostPath!.startsWith('.')) expect(existsSync(resolve(deployDir, hostPath!)), `${name}: ${hostPath}`).toBe(true);
        else expect(Object.keys(compose.volumes ?? {}), `${name}: volume ${hostPath}`).toContain(hostPath);
      }
    }
    for (const role of [...ALL_ROLES, 'migrate']) {
      expect(services[role]!.volumes, role).toContain(`app-data:${services[role]!.environment.DATA_DIR}`);
    }
  });

  it("gRPC addresses name the compose services; each service listens on 0.0.0.0; every environment passes the application's config check", () => {
    for (const role of [...ALL_ROLES, 'migrate']) {
      const env = Object.fromEntries(Object.entries(services[role]!.environment as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
      const config = loadConfig(env);
      if (role !== 'migrate') expect(config.ROLES).toEqual([role]);
      for (const service of SERVICE_ROLES) {
        const variable = GRPC_ADDRESS_VARIABLES[service];
        expect(env[variable], `${role} ${variable}`).toBe(role === service ? `0.0.0.0:${GRPC_PORTS[service]}` : `${service}:${GRPC_PORTS[service]}`);
      }
      // Local only, and still no password in a URL.
      expect(env.DATABASE_URL).not.toMatch(/:\/\/[^/@]+:[^/@]+@/);
      const [dbHost] = new URL(env.DATABASE_URL!).host.split(':');
      expect(services[dbHost!], `${role} DATABASE_URL host`).toBeDefined();
      const [redisHost] = new URL(env.REDIS_URL!).host.split(':');
      expect(services[redisHost!], `${role} REDIS_URL host`).toBeDefined();
    }
  });

  it('Envoy runs deploy/compose/envoy.yaml, generated from envoy/envoy.yaml (run `npx tsx deploy/compose/envoy-from-k8s.ts` after changing that)', () => {
    const committed = readFileSync(COMPOSE_ENVOY_FILE, 'utf8');
    expect(committed === composeEnvoyConfig(readFileSync(K8S_ENVOY_FILE, 'utf8')), 'deploy/compose/envoy.yaml is stale: run npx tsx deploy/compose/envoy-from-k8s.ts').toBe(true);
    const envoy = parseYaml(committed) as Json;
    expect(JSON.stringify(envoy)).not.toContain('transport_socket');
    const listener = envoy.static_resources.listeners[0];
    expect(listener.address.socket_address.port_value).toBe(COMPOSE_LISTENER_PORT);
    expect(services.envoy!.ports).toContain(`127.0.0.1:${COMPOSE_LISTENER_PORT}:${COMPOSE_LISTENER_PORT}`);
    expect(services.envoy!.volumes).toContain('./compose/envoy.yaml:/etc/envoy/envoy.yaml:ro');
    for (const cluster of envoy.static_resources.clusters as Json[]) {
      for (const group of cluster.load_assignment.endpoints as Json[]) {
        for (const lbEndpoint of group.lb_endpoints as Json[]) {
          const { address, port_value: port } = lbEndpoint.endpoint.address.socket_address;
          expect(services[address], `${cluster.name}: ${address}`).toBeDefined();
          if (address === 'gateway') expect(services.gateway!.environment.PORT).toBe(String(port));
          if (address === 'mcp') expect(services.mcp!.environment.MCP_PORT).toBe(String(port));
          if (address === 'otel-collector') expect(port).toBe(4317);
          const healthPort = lbEndpoint.endpoint.health_check_config?.port_value;
          if (healthPort) expect(services[address]!.environment.ADMIN_PORT).toBe(String(healthPort));
        }
      }
    }
  });

  it('the OpenTelemetry collector gets deploy/compose/otel-collector.yaml, which binds OTLP on every interface', () => {
    expect(services['otel-collector']!.volumes).toContain('./compose/otel-collector.yaml:/etc/otelcol/config.yaml:ro');
    expect(services['otel-collector']!.command).toContain('--config=/etc/otelcol/config.yaml');
    checkCollectorConfig(parseYaml(readFileSync(join(deployDir, 'compose', 'otel-collector.yaml'), 'utf8')) as Json);
  });
});

// ===================================================================================================

describe('deploy/Dockerfile', () => {
  const dockerfile = DockerfileParser.parse(readFileSync(join(deployDir, 'Dockerfile'), 'utf8'));
  const instructions = dockerfile.getInstructions();
  const froms = dockerfile.getFROMs();
  const finalFrom = froms[froms.length - 1]!;
  const finalStage = instructions.filter((i) => i.getRange().start.line >= finalFrom.getRange().start.line);
  const keyword = (i: Instruction) => i.getKeyword().toUpperCase();
  const args = (i: Instruction) => i.getArguments().map((a) => a.getValue());
  /** A COPY's stage (--from), sources and destination. */
  const copyOf = (i: Instruction) => {
    const words = args(i);
    return { from: i instanceof Copy ? i.getFromFlag()?.getValue() ?? undefined : undefined, sources: words.slice(0, -1), destination: words[words.length - 1] };
  };
  const jsonArgs = (i: Instruction): string[] => JSON.parse(i.getArgumentsContent() ?? 'null') as string[];

  it('is multi-stage: a dependencies stage installing production packages only, a node:20 runtime stage', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.getBuildStage(), from.getImage() ?? '').toBeTruthy();
    expect(finalFrom.getImage()).toMatch(/^(node:20(\.\d+)*-slim|gcr\.io\/distroless\/nodejs20-debian\d+(:nonroot)?)$/);
    const installs = instructions.filter((i) => keyword(i) === 'RUN' && /\bnpm (ci|install)\b/.test(i.getArgumentsContent() ?? ''));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install.getArgumentsContent()).toMatch(/--omit=dev|--only=prod/);
    // Nothing is installed in the final stage: it copies the dependencies stage's node_modules.
    expect(finalStage.filter((i) => keyword(i) === 'RUN' && /\bnpm\b/.test(i.getArgumentsContent() ?? ''))).toEqual([]);
    const copies = finalStage.filter((i) => keyword(i) === 'COPY').map(copyOf);
    const stages = froms.map((f) => f.getBuildStage());
    expect(copies.some((c) => c.from && stages.includes(c.from) && c.sources.some((x) => x.endsWith('/node_modules')))).toBe(true);
  });

  it('copies only production files that exist, never tests, local data or the host node_modules', () => {
    expect(instructions.filter((i) => keyword(i) === 'ADD')).toEqual([]);
    const contextSources = instructions
      .filter((i) => keyword(i) === 'COPY')
      .map(copyOf)
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    expect(contextSources.length).toBeGreaterThan(0);
    for (const source of contextSources) {
      expect(existsSync(join(root, source)), source).toBe(true);
      expect(source).not.toMatch(/^(\.|test|docs|node_modules|\.data|\.git)(\/|$)|^\.$/);
    }
    for (const needed of ['services', 'gateway', 'deploy/launcher', 'deploy/admin', 'proto/gen', 'package.json', 'package-lock.json']) expect(contextSources).toContain(needed);
    expect(statSync(join(root, 'proto', 'gen', 'descriptors.binpb')).isFile()).toBe(true);
    const ignore = readFileSync(join(deployDir, 'Dockerfile.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    for (const pattern of ['**', '**/.data', '**/node_modules', '**/*.test.ts']) expect(ignore).toContain(pattern);
  });

  it('runs as an unprivileged user, with no secret in ENV or ARG', () => {
    const users = finalStage.filter((i) => keyword(i) === 'USER').map((i) => i.getArgumentsContent() ?? '');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1]!.split(':')[0]!;
    expect(['root', '0', '']).not.toContain(user);
    expect(['node', '10001', 'nonroot', '65532']).toContain(user);
    // The last USER comes after the last RUN: nothing of the final image runs as root afterwards.
    const lastUser = finalStage.map(keyword).lastIndexOf('USER');
    expect(finalStage.map(keyword).lastIndexOf('RUN')).toBeLessThan(lastUser);
    for (const i of instructions.filter((x) => ['ENV', 'ARG'].includes(keyword(x)))) {
      const names = (i.getArgumentsContent() ?? '').match(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)/g)?.map((n) => n.trim()) ?? [];
      for (const name of names) expect(name, `${keyword(i)} ${name}`).not.toMatch(SECRET_NAME);
    }
  });

  it('starts the one entry point with tsx (a runtime dependency), exposes 8080 8081 9090 and health-checks /healthz on the admin port', () => {
    const cmds = dockerfile.getCMDs();
    expect(cmds.length).toBeGreaterThan(0);
    expect(jsonArgs(cmds[cmds.length - 1]!)).toEqual(['node', '--import', 'tsx', 'deploy/launcher/main.ts']);
    expect(finalStage.some((i) => keyword(i) === 'ENTRYPOINT')).toBe(false);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Json;
    expect(pkg.dependencies.tsx).toBeDefined();
    const exposed = finalStage.filter((i) => keyword(i) === 'EXPOSE').flatMap(args).map((p) => Number(p.split('/')[0]));
    expect(exposed.sort()).toEqual([8080, 8081, 9090]);
    const healthchecks = dockerfile.getHEALTHCHECKs();
    expect(healthchecks.length).toBe(1);
    const check = healthchecks[0]!.getArgumentsContent() ?? '';
    expect(check).toMatch(/\bCMD\b/);
    expect(check).toContain('/healthz');
    expect(check).toMatch(/ADMIN_PORT|9090/);
    // The image's defaults for a container: bind every interface, DATA_DIR writable by the user.
    const env = finalStage.filter((i) => keyword(i) === 'ENV').map((i) => i.getArgumentsContent() ?? '').join(' ');
    expect(env).toMatch(/HOST=0\.0\.0\.0/);
    expect(env).toMatch(/DATA_DIR=\/data/);
    expect(env).toMatch(/NODE_ENV=production/);
  });
});

describe('deploy/README.md', () => {
  const readme = readFileSync(join(deployDir, 'README.md'), 'utf8');
  it('documents the build, the compose stack, applying to a cluster with migrations first, and scaling', () => {
    expect(readme).toContain('docker build -f deploy/Dockerfile');
    expect(readme).toContain('docker compose -f deploy/compose.yaml up');
    expect(readme).toContain('--load-restrictor LoadRestrictionsNone');
    expect(readme).toContain('expertnet/phase=pre-rollout');
    expect(readme).toContain('kubectl -n expertnet wait --for=condition=complete job/expertnet-migrate');
    expect(readme).toMatch(/## Scaling/);
  });
});
