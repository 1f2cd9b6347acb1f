// The compose stack (deploy/compose.yaml), checked offline: validated against the Compose
// specification's JSON schema (the copy shipped by the dclint package), plus the stack's invariants.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { composeEnvoyConfig, COMPOSE_ENVOY_FILE, COMPOSE_LISTENER_PORT, K8S_ENVOY_FILE } from '../deploy/compose/envoy-from-k8s.js';
import { ALL_ROLES, GRPC_ADDRESS_VARIABLES, loadConfig, SERVICE_ROLES } from '../services/kit/config.js';
import { ADMIN_PORT, checkCollectorConfig, deployDir, GRPC_PORTS, type Json, require } from './helpers/deploy-files.js';

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
    expect(services.postgres?.image).toMatch(/^postgres:15\./);
    expect(services.redis?.image).toMatch(/^redis:7\./);
    expect(services.envoy?.image).toMatch(/^envoyproxy\/envoy:/);
    expect(services['otel-collector']?.image).toMatch(/^otel\/opentelemetry-collector-contrib:/);
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
    // Both compiled into the image (npm run build): deploy/launcher/migrate.ts, deploy/compose/init-secrets.ts.
    expect(services.migrate!.command.join(' ')).toContain('node dist/deploy/launcher/migrate.js');
    expect(services.migrate!.command.join(' ')).toContain('node dist/deploy/compose/init-secrets.js');
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
          // The gateway serves the API on PORT and the settings web app on SETTINGS_PORT.
          if (address === 'gateway') expect(services.gateway!.environment[cluster.name === 'settings' ? 'SETTINGS_PORT' : 'PORT']).toBe(String(port));
          if (address === 'mcp') expect(services.mcp!.environment.MCP_PORT).toBe(String(port));
          if (address === 'otel-collector') expect(port).toBe(4317);
          const healthPort = lbEndpoint.endpoint.health_check_config?.port_value;
          if (healthPort) expect(services[address]!.environment.ADMIN_PORT).toBe(String(healthPort));
        }
      }
    }
  });

  it('serves the settings web app through Envoy at settings.localhost (its own origin) and on loopback :8082', () => {
    const envoy = parseYaml(readFileSync(COMPOSE_ENVOY_FILE, 'utf8')) as Json;
    const hosts = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts as Json[];
    const settings = hosts.find((h) => h.name === 'settings')!;
    expect(settings.domains).toEqual(['settings.localhost', `settings.localhost:${COMPOSE_LISTENER_PORT}`]);
    expect(new Set((settings.routes as Json[]).map((r) => r.route.cluster))).toEqual(new Set(['settings']));
    const gateway = services.gateway!.environment as Record<string, string>;
    const config = loadConfig(gateway);
    expect(config.SETTINGS_PORT).toBe(8082);
    expect(new URL(config.SETTINGS_PUBLIC_URL!).host).toBe(`settings.localhost:${COMPOSE_LISTENER_PORT}`);
    expect(services.gateway!.ports).toContain(`127.0.0.1:${config.SETTINGS_PORT}:${config.SETTINGS_PORT}`);
  });

  it('the OpenTelemetry collector gets deploy/compose/otel-collector.yaml, which binds OTLP on every interface', () => {
    expect(services['otel-collector']!.volumes).toContain('./compose/otel-collector.yaml:/etc/otelcol/config.yaml:ro');
    expect(services['otel-collector']!.command).toContain('--config=/etc/otelcol/config.yaml');
    checkCollectorConfig(parseYaml(readFileSync(join(deployDir, 'compose', 'otel-collector.yaml'), 'utf8')) as Json);
  });
});
