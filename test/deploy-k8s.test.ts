// The Kubernetes manifests (deploy/k8s), checked offline: no cluster or network here. Every document
// is validated against the schema of its apiVersion/kind twice: at run time by kubernetes-models'
// compiled validators (required fields, types, enums, formats), and strictly by the TypeScript
// compiler, which type-checks each document as an object literal of kubernetes-models' declared
// type, so an unknown or misspelt field is an excess-property error. Then the invariants of this
// system: every role's Deployment, Service, HPA and PDB, probes, pod security, secrets, gRPC
// addresses, the application's own config validation of each container's environment and the
// migrations Job. The Envoy edge: deploy-k8s-envoy.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseSeed } from '../deploy/admin/seed-schema.js';
import { ALL_ROLES, GRPC_ADDRESS_VARIABLES, loadConfig, SERVICE_ROLES, type Role, type ServiceRole } from '../services/kit/config.js';
import { ADMIN_PORT, allContainers, appContainer, checkCollectorConfig, configMapData, deployDir, effectiveEnv, find, GRPC_PORTS, type Json, k8sDir, k8sDocs, kustomization, label, loaded, manifestFiles, NAMESPACE, ofKind, podTemplates, resolvePort, root, runtimeSchemaError, SECRET_NAME, SECRET_STAND_INS, selects, SERVED_API_VERSIONS, strictSchemaErrors } from './helpers/deploy-files.js';

/** The role's autoscaler, one only: its HPA, or the KEDA ScaledObject that makes one (queue roles). */
const QUEUE_GAUGES: Partial<Record<Role, string>> = { search: 'search_jobs_open', enrichment: 'enrichment_runs_open' };
function autoscalerOf(role: Role): { spec: { minReplicas: number; maxReplicas: number } } {
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: role };
  const hpas = ofKind('HorizontalPodAutoscaler').filter((d) => d.obj.spec.scaleTargetRef.name === role);
  const scaled = ofKind('ScaledObject').filter((d) => d.obj.spec.scaleTargetRef.name === role);
  // Two autoscalers on one Deployment would fight over its replicas.
  expect(hpas.length + scaled.length, role).toBe(1);
  const gauge = QUEUE_GAUGES[role];
  if (!gauge) {
    const hpa = hpas[0]!.obj;
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual(target);
    expect(hpa.spec.metrics).toContainEqual(expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }));
    return { spec: hpa.spec };
  }
  const so = scaled[0]!.obj;
  expect(so.spec.scaleTargetRef).toEqual(target);
  expect(so.spec.triggers).toContainEqual(expect.objectContaining({ type: 'cpu', metricType: 'Utilization' }));
  const queue = (so.spec.triggers as Json[]).find((t) => t.type === 'prometheus');
  expect(queue?.metadata.query, role).toContain(gauge);
  expect(Number(queue?.metadata.threshold), role).toBeGreaterThan(0);
  return { spec: { minReplicas: so.spec.minReplicaCount, maxReplicas: so.spec.maxReplicaCount } };
}

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

  it('every role has a Deployment (ROLES set), a Service, an autoscaler on CPU (an autoscaling/v2 HPA, or for search and enrichment a KEDA ScaledObject on their queue depth too) and a policy/v1 PDB that select its pods', () => {
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

      const hpa = autoscalerOf(role);
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);

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
      expect(config.API_KEY_PEPPER && config.CALLER_TOKEN_PUBLIC_KEY, role).toBeTruthy();
    }
    // The edge roles alone sign caller tokens; a service verifies them and signs none (docs/GRPC.md).
    for (const role of ALL_ROLES) {
      const signs = role === 'gateway' || role === 'mcp';
      expect([Boolean(loadConfig(effectiveEnv(appContainer(role))).CALLER_TOKEN_PRIVATE_KEY), JSON.stringify(appContainer(role)).includes('CALLER_TOKEN_PRIVATE_KEY')], role).toEqual([signs, signs]);
    }
    // Shared rate limits (the edge's, and each service's for internal teams calling it directly);
    // identity replicas share one OAuth signing key, and refuse to start without it.
    for (const role of ALL_ROLES.filter((r) => r !== 'mcp')) expect(loadConfig(effectiveEnv(appContainer(role))).REDIS_URL, role).toBeDefined();
    expect(loadConfig(effectiveEnv(appContainer('identity'))).OAUTH_SIGNING_KEY_REQUIRED).toBe(true);
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

  it('the migrations Job runs deploy/launcher/migrate.ts, compiled, before the rollout', () => {
    const job = find('Job', 'expertnet-migrate');
    const container = job.spec.template.spec.containers[0];
    // The image holds the compiled build (npm run build: deploy/launcher/migrate.ts → dist/…/migrate.js).
    expect(container.command).toEqual(['node', 'dist/deploy/launcher/migrate.js']);
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



  it('the OpenTelemetry collector config binds OTLP on every interface and its pipelines use defined components', () => {
    checkCollectorConfig(parseYaml(configMapData('otel-collector-config')['config.yaml']!) as Json);
    expect(configMapData('expertnet-config').OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://otel-collector.${NAMESPACE}.svc.cluster.local:4318`);
  });
});
