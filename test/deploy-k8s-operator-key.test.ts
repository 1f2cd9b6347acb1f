// The operator's key in the cluster: every serving role verifies operator tokens with the public key
// and none can sign one (no serving pod reads the private key or its Secret); the admin Job alone
// reads expertnet-operator, and carries the label the network policy opens the services to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ALL_ROLES, loadConfig } from '../services/kit/config.js';
import { allContainers, deployDir, effectiveEnv, find, type Json, k8sDocs, podTemplates } from './helpers/deploy-files.js';

const adminJob = parseYaml(readFileSync(join(deployDir, 'k8s-admin', 'admin-job.yaml'), 'utf8')) as Json;

/** Every (Secret, key) a container reads through secretKeyRef. */
function secretKeysRead(container: Json): string[] {
  return ((container.env ?? []) as Json[]).filter((e) => e.valueFrom?.secretKeyRef).map((e) => `${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`);
}

describe('deploy: the operator key', () => {
  it('no serving Deployment (nor any pod of the kustomization) references the operator private key; every serving role gets the public key', () => {
    for (const { doc, spec } of podTemplates()) {
      for (const c of allContainers(spec)) {
        expect(secretKeysRead(c).filter((ref) => ref.startsWith('expertnet-operator/') || ref.endsWith('/OPERATOR_TOKEN_PRIVATE_KEY')), `${doc.obj.metadata.name} ${c.name}`).toEqual([]);
        expect(JSON.stringify(c), `${doc.obj.metadata.name} ${c.name}`).not.toContain('OPERATOR_TOKEN_PRIVATE_KEY');
      }
    }
    for (const role of ALL_ROLES) {
      const container = (find('Deployment', role).spec.template.spec.containers as Json[]).find((c) => c.name === role)!;
      const config = loadConfig(effectiveEnv(container));
      expect(config.OPERATOR_TOKEN_PUBLIC_KEY, role).toContain('PUBLIC KEY');
      expect(config.OPERATOR_TOKEN_PRIVATE_KEY, role).toBeUndefined();
    }
    const configMaps = k8sDocs.filter((d) => d.obj.kind === 'ConfigMap').map((d) => JSON.stringify(d.obj.data ?? {}));
    for (const data of configMaps) expect(data).not.toContain('OPERATOR_TOKEN_PRIVATE_KEY');
  });

  it('the admin Job reads the private key from expertnet-operator, a Secret declared with that key, and is labelled as the admin tooling', () => {
    const container = adminJob.spec.template.spec.containers[0] as Json;
    expect(secretKeysRead(container)).toContain('expertnet-operator/OPERATOR_TOKEN_PRIVATE_KEY');
    expect(effectiveEnv(container).OPERATOR_TOKEN_PRIVATE_KEY).toBeDefined();
    expect(adminJob.spec.template.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'expertnet-api', 'app.kubernetes.io/component': 'admin' });
    expect(adminJob.metadata.namespace).toBe('expertnet');
    const secret = find('Secret', 'expertnet-operator');
    expect(secret.metadata.annotations['expertnet/required-keys']).toBe('OPERATOR_TOKEN_PRIVATE_KEY');
    expect(secret.data ?? secret.stringData).toBeUndefined();
  });
});
