// Dependency outages on the one-process topology (`npm start`, every role in one process): see
// test/helpers/outage-suite.ts. docs/OPERATIONS.md "When Redis or PostgreSQL is down".
import { generateSecrets } from '../../services/kit/secrets.js';
import { startMainProcess } from '../helpers/main-process.js';
import { captureLogs, OUTAGE_ENV } from '../helpers/outage-checks.js';
import { outageSuite } from '../helpers/outage-suite.js';

outageSuite('one process', async (env) => {
  const secrets = generateSecrets();
  const proc = await startMainProcess({
    ...OUTAGE_ENV,
    ...env,
    DATA_DIR: 'memory://',
    API_KEY_PEPPER: secrets.apiKeyPepper,
    CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
    CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
    OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
    OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
  });
  // The one process plays every role: its lines count as the gateway's.
  return {
    restUrl: proc.restUrl,
    mcpUrl: proc.mcpUrl,
    settingsUrl: proc.listening.settings,
    adminUrl: proc.adminUrl,
    processes: [{ role: 'gateway', logs: captureLogs(proc.child) }],
    stop: () => proc.kill('SIGTERM'),
  };
});
