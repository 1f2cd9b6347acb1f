// The X.509 certificates of a deployment's private CA, made in this process (node-forge builds and
// signs them; Node makes the keys; no openssl binary): the CA itself, and certificates it signs for
// the roles (server and client) and for internal teams (client only). RSA 2048 keys; PEM out
// (PKCS#8 for keys), as gRPC's TLS reads them.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

const DAY_MS = 86_400_000;

export interface PemPair {
  cert: string;
  key: string;
}

export interface IssueOptions {
  /** The certificate's common name: a role, or an internal team's name. */
  name: string;
  /** Host names and IP addresses a server certificate answers for; none for a client-only certificate. */
  hosts?: string[];
  days?: number;
}

function newKeys(): { pem: string; privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const parsed = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  return { pem, privateKey: parsed, publicKey: forge.pki.setRsaPublicKey(parsed.n, parsed.e) };
}

function blank(publicKey: forge.pki.PublicKey, days: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial of 16 random bytes (RFC 5280: at most 20 octets, no sign bit).
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  cert.serialNumber = serial.toString('hex');
  // An hour back: a clock a little behind on another machine still accepts a certificate just made.
  cert.validity.notBefore = new Date(Date.now() - 3_600_000);
  cert.validity.notAfter = new Date(cert.validity.notBefore.getTime() + days * DAY_MS);
  return cert;
}

export function createCertificateAuthority(commonName: string, days = 3650): PemPair {
  const keys = newKeys();
  const cert = blank(keys.publicKey, days);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem };
}

const isIp = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');

/** A certificate signed by `ca`: for a server and client (hosts given) or for a client only. */
export function issueCertificate(ca: PemPair, options: IssueOptions): PemPair {
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const keys = newKeys();
  const hosts = options.hosts ?? [];
  const cert = blank(keys.publicKey, options.days ?? 825);
  cert.setSubject([{ name: 'commonName', value: options.name }]);
  cert.setIssuer(caCert.subject.attributes);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: hosts.length > 0, clientAuth: true },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ];
  if (hosts.length > 0) {
    // type 2: dNSName, type 7: iPAddress (RFC 5280 GeneralName).
    extensions.push({ name: 'subjectAltName', altNames: hosts.map((h) => (isIp(h) ? { type: 7, ip: h } : { type: 2, value: h })) });
  }
  cert.setExtensions(extensions);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem };
}
