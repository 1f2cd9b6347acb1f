// `grpc client-cert`: a client certificate for an internal team that calls the gRPC services
// directly, signed by the CA of this data folder (DATA_DIR/grpc-tls, made by the first start of a
// system that carries gRPC over mutual TLS: deploy/launcher/grpc-tls.ts). It proves the connection
// only; each call still needs the team's own credential in `authorization` (docs/GRPC.md). On
// Kubernetes, cert-manager issues them instead (deploy/k8s/grpc-tls.yaml).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../../services/kit/config.js';
import { issueCertificate } from '../../../services/kit/tls-certificates.js';
import { namesServiceRoles } from '../../../services/kit/grpc/peer-role.js';
import { existingCertificateAuthority, localTlsFolder } from '../../launcher/grpc-tls.js';
import { positive } from '../args.js';
import { UsageError } from '../context.js';
import { print, withJson } from '../output.js';

function certificateName(value: string): string {
  if (!/^[a-z0-9][a-z0-9_.-]{0,62}$/i.test(value)) throw new InvalidArgumentError('letters, digits, _ . - (up to 63), starting with a letter or digit');
  // A certificate named as a service is that service to the others (services/kit/grpc/peer-role.ts).
  if (namesServiceRoles(value)) throw new InvalidArgumentError(`${value} is a service's name: a certificate so named would act as that service; name the team or program`);
  return value;
}

/** Writes a file that must not exist yet: a certificate already handed out is never overwritten. */
function writeNew(file: string, content: string, mode: number): void {
  try {
    writeFileSync(file, content, { flag: 'wx', mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`${file} exists; give another --out folder`);
    throw error;
  }
}

export function registerGrpc(program: Command): void {
  const grpc = program.command('grpc').description("the gRPC services' mutual TLS");
  withJson(grpc.command('client-cert'))
    .description('write ca.pem, client.pem and client-key.pem for an internal team, signed by the CA of this data folder')
    .requiredOption('--name <name>', "the certificate's common name: the team or program", certificateName)
    .requiredOption('--out <dir>', 'the folder to write the three files to (created if missing)')
    .option('--days <n>', 'how long the certificate is valid (default 365)', positive)
    .action((options: { name: string; out: string; days?: number; json?: boolean }) => {
      const config = loadConfig();
      const folder = localTlsFolder(config.DATA_DIR);
      const ca = folder && existingCertificateAuthority(folder);
      if (!ca) {
        throw new UsageError(
          `no gRPC CA in data folder ${config.DATA_DIR}: it is made on the first start of a system whose gRPC is mutual TLS ` +
          '(npm run topology; gRPC off loopback); on Kubernetes, cert-manager issues client certificates (deploy/k8s/grpc-tls.yaml)',
        );
      }
      const issued = issueCertificate(ca, { name: options.name, days: options.days ?? 365 });
      mkdirSync(options.out, { recursive: true });
      const files = { ca: join(options.out, 'ca.pem'), cert: join(options.out, 'client.pem'), key: join(options.out, 'client-key.pem') };
      writeNew(files.key, issued.key, 0o600);
      writeNew(files.cert, issued.cert, 0o644);
      writeNew(files.ca, ca.cert, 0o644);
      const validTo = new Date(new X509Certificate(issued.cert).validTo).toISOString();
      print({ name: options.name, ca_file: files.ca, cert_file: files.cert, key_file: files.key, not_after: validTo }, options);
    });
}
