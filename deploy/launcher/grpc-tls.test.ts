// How a process carries gRPC, from its configuration alone: plaintext only with every gRPC address
// on loopback and every service in the process, mutual TLS from the files named, else from a CA and
// certificate made once in the data folder.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../services/kit/config.js';
import { grpcTransportOf, localCertificate } from './grpc-tls.js';

const offLoopback = { IDENTITY_GRPC_ADDR: 'identity:50051', ROLES: 'identity' };

describe('gRPC transport of a process', () => {
  it('is plaintext, and says so, for a process of every role when every gRPC address is on loopback and no TLS files are named', () => {
    const transport = grpcTransportOf(loadConfig({ DATA_DIR: 'memory://' }));
    expect(transport.tls).toBeUndefined();
    expect(transport.said).toMatch(/^gRPC: +plaintext: every gRPC address is on loopback/);
  });

  it('is mutual TLS on loopback too for a process of some service roles but not all: services in separate processes know each other by their certificates', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-grpc-tls-'));
    const transport = grpcTransportOf(loadConfig({ ROLES: 'search', DATA_DIR: dataDir }));
    expect(transport.said).toContain('mutual TLS');
    expect(new X509Certificate(transport.tls!.cert).subject).toBe('CN=search');
    // A process of edge roles only signs its callers' tokens: plaintext on loopback.
    expect(grpcTransportOf(loadConfig({ ROLES: 'gateway', DATA_DIR: dataDir })).tls).toBeUndefined();
  });

  it('off loopback, makes a CA and this process certificate in DATA_DIR/grpc-tls once, and uses them again on the next start', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-grpc-tls-'));
    const first = grpcTransportOf(loadConfig({ ...offLoopback, DATA_DIR: dataDir }));
    const again = grpcTransportOf(loadConfig({ ...offLoopback, DATA_DIR: dataDir }));
    expect(first.said).toContain('mutual TLS');
    expect(again.tls!.cert.equals(first.tls!.cert)).toBe(true);
    const cert = new X509Certificate(first.tls!.cert);
    expect(cert.subject).toBe('CN=identity');
    expect(cert.subjectAltName).toContain('DNS:identity');
    expect(cert.checkIssued(new X509Certificate(readFileSync(join(dataDir, 'grpc-tls', 'ca', 'ca.pem'))))).toBe(true);
  });

  it('uses the files GRPC_TLS_* name, whatever the addresses', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'en-grpc-tls-'));
    const files = localCertificate(join(dataDir, 'elsewhere'), 'team');
    const transport = grpcTransportOf(loadConfig({ GRPC_TLS_CA_FILE: files.caFile, GRPC_TLS_CERT_FILE: files.certFile, GRPC_TLS_KEY_FILE: files.keyFile }));
    expect(transport.tls!.cert.toString()).toBe(readFileSync(files.certFile, 'utf8'));
    expect(transport.said).toContain(`GRPC_TLS_CA_FILE ${files.caFile}`);
  });

  it('refuses to start off loopback with no TLS files and no data folder to make them in', () => {
    expect(() => grpcTransportOf(loadConfig({ ...offLoopback, DATA_DIR: 'memory://' }))).toThrow(ConfigError);
  });

  it('refuses some of the GRPC_TLS_* files without the others', () => {
    expect(() => loadConfig({ GRPC_TLS_CA_FILE: '/ca.pem' })).toThrow(/must be set together/);
  });
});
