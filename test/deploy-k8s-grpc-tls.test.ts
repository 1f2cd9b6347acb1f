// deploy/k8s/grpc-tls.yaml: mutual TLS of gRPC between the roles, from cert-manager. Checked
// offline: a CA made by a self-signed Issuer, a CA Issuer signing with it, one Certificate per role
// (a service's naming its Service), each role's pods mounting their own Secret where the
// ConfigMap's GRPC_TLS_* point. (The documents' schemas: deploy-k8s.test.ts.)
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_ROLES, SERVICE_ROLES } from '../services/kit/config.js';
import { appContainer, configMapData, effectiveEnv, find, NAMESPACE, ofKind } from './helpers/deploy-files.js';

const MOUNT = '/etc/expertnet/grpc-tls';

describe('deploy/k8s: gRPC mutual TLS from cert-manager', () => {
  it('a self-signed Issuer makes the CA Certificate, and a CA Issuer signs with its Secret', () => {
    expect(find('Issuer', 'expertnet-selfsigned').spec).toEqual({ selfSigned: {} });
    const ca = find('Certificate', 'expertnet-grpc-ca').spec;
    expect(ca).toMatchObject({ isCA: true, secretName: 'expertnet-grpc-ca', issuerRef: { name: 'expertnet-selfsigned', kind: 'Issuer' } });
    expect(find('Issuer', 'expertnet-grpc-ca').spec).toEqual({ ca: { secretName: 'expertnet-grpc-ca' } });
  });

  it('every role has a Certificate from the CA Issuer; a service\'s serves its Service names, and every one is a client', () => {
    for (const role of ALL_ROLES) {
      const spec = find('Certificate', `expertnet-grpc-${role}`).spec;
      expect(spec.issuerRef, role).toMatchObject({ name: 'expertnet-grpc-ca', kind: 'Issuer' });
      expect(spec.secretName, role).toBe(`expertnet-grpc-${role}`);
      expect(spec.usages, role).toContain('client auth');
      expect(spec.privateKey.encoding, role).toBe('PKCS8');
      if ((SERVICE_ROLES as readonly string[]).includes(role)) {
        expect(spec.usages, role).toContain('server auth');
        // The name the others dial (the ConfigMap's <ROLE>_GRPC_ADDR) is one the certificate answers for.
        expect(spec.dnsNames, role).toContain(`${role}.${NAMESPACE}.svc.cluster.local`);
      } else {
        expect(spec.usages, role).not.toContain('server auth');
      }
    }
    expect(ofKind('Certificate').map((d) => d.obj.metadata.name).sort()).toEqual(['expertnet-grpc-ca', ...ALL_ROLES.map((r) => `expertnet-grpc-${r}`)].sort());
  });

  it("each role's container mounts its own Secret read-only where GRPC_TLS_* point", () => {
    const config = configMapData('expertnet-config');
    expect(config.GRPC_TLS_CA_FILE).toBe(posix.join(MOUNT, 'ca.crt'));
    expect(config.GRPC_TLS_CERT_FILE).toBe(posix.join(MOUNT, 'tls.crt'));
    expect(config.GRPC_TLS_KEY_FILE).toBe(posix.join(MOUNT, 'tls.key'));
    for (const role of ALL_ROLES) {
      const deployment = find('Deployment', role);
      const container = appContainer(role);
      const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === MOUNT);
      expect(mount?.readOnly, role).toBe(true);
      const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name);
      expect(volume.secret.secretName, role).toBe(`expertnet-grpc-${role}`);
      expect(effectiveEnv(container).GRPC_TLS_KEY_FILE, role).toBe(config.GRPC_TLS_KEY_FILE);
    }
  });
});
