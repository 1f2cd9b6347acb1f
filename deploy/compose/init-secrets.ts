// The local stack's one-shot `migrate` service runs this after `deploy/launcher/migrate.ts`: it creates the
// server secrets once in the shared DATA_DIR volume (secrets.json: pepper and caller-token pair;
// oauth-signing-key.json: the local OAuth issuer's pair; operator-token-key.json: the operator's pair,
// which the admin CLI signs with), so every role container, all started
// after it, reads the same set instead of racing to create it. Nothing secret is printed.
// In Kubernetes the secrets come from a Secret instead (deploy/k8s/secret.yaml).
import { loadConfig } from '../../services/kit/config.js';
import { loadSecrets } from '../../services/kit/secrets.js';

const config = loadConfig();
if (config.DATA_DIR.startsWith('memory://')) throw new Error('DATA_DIR must be a shared folder, not memory://');
const secrets = loadSecrets({ ...config, ROLES: ['identity'] });
console.log(
  JSON.stringify({
    dataDir: config.DATA_DIR,
    secrets: Object.keys(secrets).filter((k) => secrets[k as keyof typeof secrets] !== undefined),
  }),
);
