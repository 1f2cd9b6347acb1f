// The Envoy edge of the Kubernetes manifests (deploy/k8s), checked offline.
import { readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { K8S_ENVOY_FILE } from '../deploy/compose/envoy-from-k8s.js';
import { loadConfig } from '../services/kit/config.js';
import { appContainer, effectiveEnv, find, type Json, k8sDir, k8sDocs, kustomization, NAMESPACE, resolvePort, selects } from './helpers/deploy-files.js';

describe('deploy/k8s: Kubernetes manifests', () => {
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

    it("serves the settings web app: the gateway exposes SETTINGS_PORT (container and Service), and Envoy's settings host is SETTINGS_PUBLIC_URL's", () => {
      const config = loadConfig(effectiveEnv(appContainer('gateway')));
      expect(config.SETTINGS_PORT).toBe(8082);
      const gatewayContainer = appContainer('gateway');
      const service = find('Service', 'gateway');
      const servicePort = (service.spec.ports as Json[]).find((p) => p.name === 'settings')!;
      expect(servicePort.port).toBe(config.SETTINGS_PORT);
      expect(resolvePort(gatewayContainer, servicePort.targetPort)).toBe(config.SETTINGS_PORT);
      // https: its cookies are Secure (the __Host- prefix), as behind Envoy's TLS listener.
      const publicUrl = new URL(config.SETTINGS_PUBLIC_URL!);
      expect(publicUrl.protocol).toBe('https:');
      const hosts = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts as Json[];
      const settings = hosts.find((h) => (h.domains as string[]).includes(publicUrl.host))!;
      expect(settings, publicUrl.host).toBeDefined();
      const clusters = new Set((settings.routes as Json[]).map((r) => r.route.cluster));
      expect(clusters).toEqual(new Set(['settings']));
      const cluster = (envoy.static_resources.clusters as Json[]).find((c) => c.name === 'settings')!;
      expect(cluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address)
        .toEqual({ address: `gateway.${NAMESPACE}.svc.cluster.local`, port_value: config.SETTINGS_PORT });
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
});
