// The enrichment pipeline's front door (docs/ENRICHMENT-PROVIDERS.md): createEnrichmentPipeline()
// builds the steps of the three tiers from a ProviderConfig, and providerConfigFrom() reads one
// from the process configuration.
//   quick    — normalize, topics: the person's own data, offline.
//   standard — + orcid (ORCID public API), openalex (OpenAlex authors).
//   deep     — + recent_works (OpenAlex works), collaborators (community peers), summary
//              (an OpenAI-compatible chat completions endpoint, when configured).
import { collaboratorsStep } from './collaborators.js';
import { JsonClient } from './http.js';
import { openAlexStep } from './openalex.js';
import { orcidStep } from './orcid.js';
import { StagedPipeline } from './pipeline.js';
import { recentWorksStep } from './recent-works.js';
import { summaryStep } from './summary.js';
import { topicsStep } from './topics.js';
import type { EnrichmentPipeline, ProviderConfig } from './types.js';

export type {
  CommunityPeer,
  Depth,
  EnrichmentPipeline,
  EnrichmentResult,
  NormalizedFields,
  PersonInput,
  ProviderConfig,
  StepOutcome,
} from './types.js';
export { DEPTHS } from './types.js';

/** The offline configuration: both HTTP providers off, no summary (used by benchmarks). */
export const OFFLINE_PROVIDERS: ProviderConfig = Object.freeze({
  orcidApiUrl: 'off',
  openAlexApiUrl: 'off',
  orcidRatePerSecond: 20,
  openAlexRatePerSecond: 10,
  httpTimeoutMs: 5000,
  httpRetries: 2,
  summaryModel: 'gpt-4o-mini',
});

export function providerConfigFrom(config: {
  ORCID_API_URL: string;
  OPENALEX_API_URL: string;
  OPENALEX_MAILTO?: string;
  /** Not in the process configuration yet; read once it is. */
  OPENALEX_API_KEY?: string;
  ORCID_RATE_PER_SECOND: number;
  OPENALEX_RATE_PER_SECOND: number;
  ENRICHMENT_HTTP_TIMEOUT_MS: number;
  ENRICHMENT_HTTP_RETRIES: number;
  ENRICHMENT_SUMMARY_URL?: string;
  ENRICHMENT_SUMMARY_MODEL: string;
  ENRICHMENT_SUMMARY_API_KEY?: string;
}): ProviderConfig {
  return {
    orcidApiUrl: config.ORCID_API_URL,
    openAlexApiUrl: config.OPENALEX_API_URL,
    ...(config.OPENALEX_MAILTO ? { openAlexMailto: config.OPENALEX_MAILTO } : {}),
    ...(config.OPENALEX_API_KEY ? { openAlexApiKey: config.OPENALEX_API_KEY } : {}),
    orcidRatePerSecond: config.ORCID_RATE_PER_SECOND,
    openAlexRatePerSecond: config.OPENALEX_RATE_PER_SECOND,
    httpTimeoutMs: config.ENRICHMENT_HTTP_TIMEOUT_MS,
    httpRetries: config.ENRICHMENT_HTTP_RETRIES,
    ...(config.ENRICHMENT_SUMMARY_URL ? { summaryUrl: config.ENRICHMENT_SUMMARY_URL } : {}),
    summaryModel: config.ENRICHMENT_SUMMARY_MODEL,
    ...(config.ENRICHMENT_SUMMARY_API_KEY ? { summaryApiKey: config.ENRICHMENT_SUMMARY_API_KEY } : {}),
  };
}

export function createEnrichmentPipeline(config: ProviderConfig): EnrichmentPipeline {
  const http = { timeoutMs: config.httpTimeoutMs, retries: config.httpRetries };
  const orcid = config.orcidApiUrl === 'off' ? null : new JsonClient({ ...http, baseUrl: config.orcidApiUrl, ratePerSecond: config.orcidRatePerSecond });
  const openAlexQuery = {
    ...(config.openAlexMailto ? { mailto: config.openAlexMailto } : {}),
    ...(config.openAlexApiKey ? { api_key: config.openAlexApiKey } : {}),
  };
  const openAlex =
    config.openAlexApiUrl === 'off'
      ? null
      : new JsonClient({ ...http, baseUrl: config.openAlexApiUrl, ratePerSecond: config.openAlexRatePerSecond, query: openAlexQuery });
  const summary = config.summaryUrl
    ? new JsonClient({ ...http, baseUrl: config.summaryUrl, ...(config.summaryApiKey ? { headers: { authorization: `Bearer ${config.summaryApiKey}` } } : {}) })
    : null;
  return new StagedPipeline([
    [topicsStep],
    [orcidStep(orcid), openAlexStep(openAlex)],
    [recentWorksStep(openAlex)],
    [collaboratorsStep],
    [summaryStep(summary, config.summaryModel)],
  ]);
}
