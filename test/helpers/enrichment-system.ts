// The whole system (test-system.ts) with its enrichment service pointed at a provider replay
// (provider-replay.ts) instead of the real providers. Retries are off: each provider call is
// answered once, so what a test sees of a run is what the replay answered.
import type { SeedInput } from '../../deploy/admin/seed-schema.js';
import { startProviderReplay, type ProviderReplay, type ProviderReplayOptions } from './provider-replay.js';
import type { StoreName } from './stores.js';
import { startTestSystem, type TestSystem } from './test-system.js';

export interface EnrichmentSystem extends TestSystem {
  replay: ProviderReplay;
}

/** Starts the replay, then the system; `stop()` stops both. */
export async function startEnrichmentSystem(options: {
  store: StoreName;
  seed: SeedInput;
  replay?: ProviderReplayOptions;
  env?: Record<string, string>;
}): Promise<EnrichmentSystem> {
  const replay = await startProviderReplay(options.replay);
  let sys: TestSystem;
  try {
    sys = await startTestSystem({
      store: options.store,
      seed: options.seed,
      env: { ORCID_API_URL: replay.orcidUrl, OPENALEX_API_URL: replay.openAlexUrl, ENRICHMENT_HTTP_RETRIES: '0', ...options.env },
    });
  } catch (error) {
    await replay.close();
    throw error;
  }
  const stopSystem = sys.stop.bind(sys);
  return Object.assign(sys, {
    replay,
    async stop() {
      await stopSystem();
      await replay.close();
    },
  });
}
