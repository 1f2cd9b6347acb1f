// `npm run admin -- grpc client-cert`, run as an operator runs it, against a data folder alone (no
// running system is needed: the certificate is signed by the data folder's CA).
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localCertificateAuthority } from '../deploy/launcher/grpc-tls.js';
import { runAdminCli } from './helpers/admin-cli.js';

describe('admin CLI: grpc client-cert', () => {
  it("writes ca.pem, client.pem and client-key.pem (0600), a client-only certificate signed by the data folder's CA", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-cli-grpc-'));
    const ca = localCertificateAuthority(join(dataDir, 'grpc-tls'));
    const out = join(dataDir, 'out');
    const result = await runAdminCli({ DATA_DIR: dataDir }, ['grpc', 'client-cert', '--name', 'analytics', '--out', out, '--days', '30']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readFileSync(join(out, 'ca.pem'), 'utf8')).toBe(ca.cert);
    const cert = new X509Certificate(readFileSync(join(out, 'client.pem')));
    expect(cert.subject).toBe('CN=analytics');
    expect(cert.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']); // clientAuth only: it cannot serve
    expect(new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()).toBe(30 * 86_400_000);
    expect(statSync(join(out, 'client-key.pem')).mode & 0o777).toBe(0o600);
  });

  it('without a CA in the data folder: exit 1 saying where one comes from, nothing written', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-cli-grpc-'));
    const result = await runAdminCli({ DATA_DIR: dataDir }, ['grpc', 'client-cert', '--name', 'analytics', '--out', join(dataDir, 'out')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no gRPC CA in data folder ${dataDir}`);
    expect(() => statSync(join(dataDir, 'out'))).toThrow();
  });

  it('refuses a name that is not a plain word before doing anything', async () => {
    const result = await runAdminCli({ DATA_DIR: mkdtempSync(join(tmpdir(), 'en-cli-grpc-')) }, ['grpc', 'client-cert', '--name', 'a b/c', '--out', 'x']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--name.*invalid/);
  });

  it("refuses a service's name (such a certificate would act as that service) before doing anything", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-cli-grpc-'));
    for (const name of ['billing', 'search']) {
      const result = await runAdminCli({ DATA_DIR: dataDir }, ['grpc', 'client-cert', '--name', name, '--out', join(dataDir, 'out')]);
      expect(result.code, name).toBe(1);
      expect(result.stderr).toContain(`${name} is a service's name`);
    }
    expect(() => statSync(join(dataDir, 'out'))).toThrow();
  });
});
