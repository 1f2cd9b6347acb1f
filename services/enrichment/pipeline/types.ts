// The pipeline's contract with the enrichment service (re-exported by index.ts), and the one
// interface every step after normalisation implements. Steps pass what they found to later steps
// through `Found` (found.ts); the pipeline turns it into the stored document at the end.
import type { Found } from './found.js';

export type Depth = 'quick' | 'standard' | 'deep';
/** The tiers in order: each includes the steps of the ones before it. */
export const DEPTHS: readonly Depth[] = ['quick', 'standard', 'deep'];

export interface PersonInput {
  profileId: string;
  name: string;
  headline: string | null;
  bio: string | null;
  organization: string | null;
  location: string | null;
  orcid: string | null;
  linkedinUrl: string | null;
}

/** Another member of the same community (for the deep tier's collaborators step). */
export interface CommunityPeer {
  profileId: string;
  name: string;
  orcid: string | null;
}

export interface StepOutcome {
  step: string;
  status: 'succeeded' | 'skipped';
  reason?: string;
}

export interface NormalizedFields {
  name: string;
  organization: string | null;
  location: string | null;
  orcid: string | null;
  linkedinUrl: string | null;
}

export interface EnrichmentResult {
  /** JSON-serialisable document stored as the person's enrichment data (shown to API users as `enrichment.data`). */
  data: Record<string, unknown>;
  /** Plain text added to the person's search document (topics, skills, employers, work titles, summary). */
  searchText: string;
  normalized: NormalizedFields;
  steps: StepOutcome[];
}

export interface EnrichmentPipeline {
  enrich(person: PersonInput, depth: Depth, context?: { peers?: CommunityPeer[]; signal?: AbortSignal }): Promise<EnrichmentResult>;
}

export interface ProviderConfig {
  /** ORCID public API v3.0 base URL, or 'off'. */
  orcidApiUrl: string | 'off';
  /** OpenAlex API base URL, or 'off'. */
  openAlexApiUrl: string | 'off';
  /** Sent as mailto= (OpenAlex polite pool). */
  openAlexMailto?: string;
  /** Sent as api_key= (OpenAlex expects one from February 2026); never logged. */
  openAlexApiKey?: string;
  /** Requests per second to ORCID, shared by every pipeline of this process. */
  orcidRatePerSecond: number;
  openAlexRatePerSecond: number;
  /** Per attempt. */
  httpTimeoutMs: number;
  /** Retries after the first attempt (429, 5xx, network errors and timeouts). */
  httpRetries: number;
  /** OpenAI-compatible base URL; the summary step runs only when set. */
  summaryUrl?: string;
  summaryModel: string;
  /** Sent as Authorization: Bearer; never logged. */
  summaryApiKey?: string;
}

/** The person after the normalize step, as every later step sees them. */
export interface NormalizedPerson extends NormalizedFields {
  profileId: string;
  headline: string | null;
  bio: string | null;
  /** Why the given ORCID iD was dropped (it was not an iD, or failed its checksum). */
  orcidProblem?: string;
}

export interface StepContext {
  person: NormalizedPerson;
  /** What earlier steps found. */
  found: Readonly<Found>;
  peers: readonly CommunityPeer[];
  signal?: AbortSignal;
}

/** A step either adds to what was found or says why it could not run. */
export type StepResult = { found: Found } | { skipped: string };

/**
 * One enrichment step after normalisation. `run` reports a provider that is off, unreachable or has
 * nothing as `skipped`; it throws only on programmer errors or when the context's signal aborts.
 */
export interface Step {
  readonly name: string;
  /** The lowest tier the step runs at. */
  readonly depth: Depth;
  run(context: StepContext): Promise<StepResult>;
}

export const skip = (reason: string): StepResult => ({ skipped: reason });
