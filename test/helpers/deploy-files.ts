// The deployment suites' shared reading of deploy/: the Kubernetes manifests loaded once, the schema
// validators (kubernetes-models at run time, the TypeScript compiler strictly), a container's
// effective environment, and the OpenTelemetry collector config check compose and Kubernetes share.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { expect } from 'vitest';
import type { ServiceRole } from '../../services/kit/config.js';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const deployDir = join(root, 'deploy');
export const k8sDir = join(deployDir, 'k8s');
export const require = createRequire(import.meta.url);

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const NAMESPACE = 'expertnet';
export const ADMIN_PORT = 9090;
export const GRPC_PORTS: Record<ServiceRole, number> = { identity: 50051, communities: 50052, search: 50053, enrichment: 50054, billing: 50055 };
export const SERVED_API_VERSIONS = [
  'v1', 'apps/v1', 'batch/v1', 'autoscaling/v2', 'policy/v1', 'networking.k8s.io/v1', 'rbac.authorization.k8s.io/v1',
  // Custom resources of operators the manifests expect (their CRDs: deploy/README.md).
  'monitoring.coreos.com/v1', 'keda.sh/v1alpha1', 'cert-manager.io/v1',
];
/** API groups of custom resources → the @kubernetes-models package with their schemas and types. */
const CRD_MODEL_PACKAGES: Record<string, string> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'keda.sh': '@kubernetes-models/keda',
  'cert-manager.io': '@kubernetes-models/cert-manager',
};
/** Names whose values are secrets: never a literal in a manifest, never in a ConfigMap. */
export const SECRET_NAME = /PEPPER|PRIVATE_KEY|PUBLIC_KEY|PASSWORD|SECRET|TOKEN|DATABASE_URL|REDIS_URL|CREDENTIAL/i;
/** Stand-ins for the Secret's values: shaped as the application's config schema requires. */
export const SECRET_STAND_INS: Record<string, string> = {
  DATABASE_URL: 'postgres://expertnet@db.example:5432/expertnet',
  REDIS_URL: 'redis://redis.example:6379',
  API_KEY_PEPPER: 'x'.repeat(43),
  CALLER_TOKEN_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nstand-in\n-----END PRIVATE KEY-----\n',
  CALLER_TOKEN_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nstand-in\n-----END PUBLIC KEY-----\n',
  OPERATOR_TOKEN_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\noperator stand-in\n-----END PUBLIC KEY-----\n',
};

// ---- loading ---------------------------------------------------------------------------------------

export interface K8sDoc {
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

export const manifestFiles = readdirSync(k8sDir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml').sort();
export const loaded = manifestFiles.map((file) => ({ file, ...readYamlDocuments(join(k8sDir, file)) }));
export const k8sDocs: K8sDoc[] = loaded.flatMap(({ file, docs }) => docs.map((obj, index) => ({ file, index, obj })));
export const kustomization = parseYaml(readFileSync(join(k8sDir, 'kustomization.yaml'), 'utf8')) as Json;

export const label = (d: K8sDoc) => `${d.file}#${d.index} ${d.obj.kind}/${d.obj.metadata?.name}`;
export const ofKind = (kind: string) => k8sDocs.filter((d) => d.obj.kind === kind);
export function find(kind: string, name: string): Json {
  const doc = k8sDocs.find((d) => d.obj.kind === kind && d.obj.metadata?.name === name);
  if (!doc) throw new Error(`no ${kind} named ${name} in deploy/k8s`);
  return doc.obj;
}
export const configMapData = (name: string): Record<string, string> => find('ConfigMap', name).data ?? {};
export const podTemplates = () =>
  k8sDocs
    .filter((d) => ['Deployment', 'Job', 'StatefulSet', 'DaemonSet'].includes(d.obj.kind))
    .map((d) => ({ doc: d, spec: d.obj.spec.template.spec as Json }));
export const allContainers = (pod: Json): Json[] => [...(pod.initContainers ?? []), ...(pod.containers ?? [])];

/** `apps/v1` + `Deployment` → the kubernetes-models module path (core group: `v1`; custom resources: their package). */
const modelPath = (apiVersion: string, kind: string) =>
  `${CRD_MODEL_PACKAGES[apiVersion.split('/')[0]!] ?? 'kubernetes-models'}/${apiVersion}/${kind}`;

// ---- schema validation helpers ---------------------------------------------------------------------

/** kubernetes-models' compiled validator for the document's apiVersion/kind: the error text, or null. */
export function runtimeSchemaError(obj: Json): string | null {
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
export function strictSchemaErrors(objects: Json[]): Map<number, string[]> {
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
export function effectiveEnv(container: Json): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, configMapData(source.configMapRef.name));
    if (source.secretRef) throw new Error('envFrom secretRef hides which keys a pod needs: use secretKeyRef');
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) env[entry.name] = String(entry.value);
    else if (entry.valueFrom?.secretKeyRef) {
      const key = entry.valueFrom.secretKeyRef.key as string;
      env[entry.name] = SECRET_STAND_INS[key] ?? (key === 'MIGRATION_DATABASE_URL' ? 'postgres://expertnet_migrate@db.example:5432/expertnet' : 'stand-in');
    }
    else if (entry.valueFrom?.configMapKeyRef) env[entry.name] = configMapData(entry.valueFrom.configMapKeyRef.name)[entry.valueFrom.configMapKeyRef.key]!;
  }
  return env;
}

export function appContainer(role: string): Json {
  const deployment = find('Deployment', role);
  const container = (deployment.spec.template.spec.containers as Json[]).find((c) => c.name === role);
  if (!container) throw new Error(`Deployment ${role} has no container named ${role}`);
  return container;
}

export function resolvePort(container: Json, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  return (container.ports as Json[] | undefined)?.find((p) => p.name === port)?.containerPort;
}

export function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

export function checkCollectorConfig(config: Json): void {
  expect(config.receivers.otlp.protocols.grpc.endpoint).toBe('0.0.0.0:4317');
  expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
  for (const [name, pipeline] of Object.entries(config.service.pipelines as Record<string, Json>)) {
    for (const kind of ['receivers', 'processors', 'exporters']) {
      for (const component of pipeline[kind] ?? []) expect(config[kind]?.[component], `${name}: ${kind} ${component}`).toBeDefined();
    }
  }
  for (const extension of config.service.extensions ?? []) expect(config.extensions?.[extension]).toBeDefined();
}
