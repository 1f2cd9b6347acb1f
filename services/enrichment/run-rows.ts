// The rows of enrichment runs, their items and the enrichment data they write, as the store holds
// them (runs.repository.ts reads and writes them).
import type { Depth } from './pipeline/index.js';

export type RunKind = 'self' | 'community';
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed';
export type ItemStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';

export interface RunRow {
  id: string;
  kind: RunKind;
  community_id: string | null;
  user_id: string | null;
  profile_id: string | null;
  credential_id: string;
  caller: unknown;
  depth: Depth;
  payer_type: string | null;
  payer_id: string | null;
  status: RunStatus;
  error: string | null;
  metered: boolean;
  metered_credits: number;
  attempts: number;
  lease_until: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ItemRow {
  run_id: string;
  profile_id: string;
  status: ItemStatus;
  reason: string | null;
  credits_charged: number;
  charged: boolean;
  indexed: boolean;
  search_text: string | null;
}

export interface RunCounts {
  total: number;
  succeeded: number;
  failed: number;
  skipped: number;
  credits: number;
}

/** Stored enrichment data: a community's of a member, or a person's own. */
export interface EnrichmentDataRow {
  depth: Depth;
  data: unknown;
  enriched_at: Date;
}

export interface NewRun {
  id: string;
  kind: RunKind;
  communityId?: string;
  userId?: string;
  profileId?: string;
  credentialId: string;
  caller: unknown;
  depth: Depth;
  payer: { type: string; id: string } | null;
}

/** A person of a new run: pending, or skipped from the start with its reason. */
export interface NewItem {
  profileId: string;
  skippedBecause?: string;
}
