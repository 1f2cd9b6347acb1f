// Dependency outages on the multi-process topology (deploy/local/launch.ts, each role in its own
// process): see test/helpers/outage-suite.ts. docs/OPERATIONS.md "When Redis or PostgreSQL is down".
import { launchTopology } from '../../deploy/local/launch.js';
import { captureLogs, OUTAGE_ENV } from '../helpers/outage-checks.js';
import { outageSuite } from '../helpers/outage-suite.js';

outageSuite('multi-process', async (env) => {
  const topology = await launchTopology({ ...OUTAGE_ENV, ...env }, { readyTimeoutMs: 240_000 });
  const gateway = topology.processes.find((p) => p.role === 'gateway')!;
  return {
    restUrl: topology.restUrl,
    adminUrl: gateway.adminUrl,
    processes: topology.processes.map((p) => ({ role: p.role, logs: captureLogs(p.child) })),
    stop: () => topology.stop(),
  };
});
