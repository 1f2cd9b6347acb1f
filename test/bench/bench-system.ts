// The whole system in one process on a fresh PostgreSQL database, seeded from `seed` (the operator
// contract's seed format), for the benchmarks that drive it end to end (enrichment, re-index).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { PersonInput } from '../../services/enrichment/pipeline/index.js';
import { loadConfig, type Config } from '../../services/kit/config.js';
import { createLogger } from '../../services/kit/logger.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { startSystem, type RunningSystem } from '../../deploy/launcher/runtime.js';
import { freshPostgresDatabase } from '../helpers/stores.js';
import { ANY_PORT_ENV } from '../helpers/any-port-env.js';

export interface BenchSystem {
  running: RunningSystem;
  /** The fresh database's URL (benchmarks write bulk data straight into it). */
  url: string;
  /** Stops the system and drops the database. */
  stop(): Promise<void>;
}

/**
 * A bench system's configuration: every port the OS's pick, no outside providers, fresh secrets;
 * `env` names the store (DATABASE_URL, REDIS_URL, DATA_DIR), the seed and anything else.
 */
export function benchConfig(env: Record<string, string>): Config {
  const secrets = generateSecrets();
  return loadConfig({
    ...ANY_PORT_ENV,
    LOG_LEVEL: 'warn',
    ORCID_API_URL: 'off',
    OPENALEX_API_URL: 'off',
    API_KEY_PEPPER: secrets.apiKeyPepper,
    CALLER_TOKEN_PRIVATE_KEY: secrets.callerTokenPrivateKey,
    CALLER_TOKEN_PUBLIC_KEY: secrets.callerTokenPublicKey,
    OPERATOR_TOKEN_PRIVATE_KEY: secrets.operatorTokenPrivateKey,
    OPERATOR_TOKEN_PUBLIC_KEY: secrets.operatorTokenPublicKey,
    ...env,
  });
}

export async function startBenchSystem(seed: object): Promise<BenchSystem> {
  const fresh = await freshPostgresDatabase();
  const seedFile = join(mkdtempSync(join(tmpdir(), 'en-bench-')), 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seed));
  const config = benchConfig({ DATABASE_URL: fresh.url, DATA_DIR: 'memory://', SEED_FILE: seedFile });
  let running: RunningSystem;
  try {
    running = await startSystem(config, createLogger(config.LOG_LEVEL));
  } catch (error) {
    await fresh.drop();
    throw error;
  }
  return {
    running,
    url: fresh.url,
    stop: async () => {
      try {
        await running.stop();
      } finally {
        await fresh.drop();
      }
    },
  };
}

/** A person as the communities store holds them (the enrichment pipeline's input has the same fields). */
export type BenchMember = Pick<PersonInput, 'profileId' | 'name' | 'headline' | 'bio' | 'organization' | 'location'>;

/**
 * Writes people straight into the communities store, each a member of `communityOf(index)` (adding
 * thousands of people one by one through the operator API would measure the seed, not the bench).
 */
export async function insertMembers(url: string, people: BenchMember[], communityOf: (index: number) => string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < people.length; i += 1000) {
      const chunk = people.slice(i, i + 1000);
      const column = (field: keyof BenchMember) => chunk.map((p) => p[field]);
      await client.query(
        `INSERT INTO communities.profiles (id, name, headline, bio, organization, location)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`,
        [column('profileId'), column('name'), column('headline'), column('bio'), column('organization'), column('location')],
      );
      await client.query(
        `INSERT INTO communities.memberships (community_id, profile_id, role, source_identifier)
         SELECT c, p, 'member', p FROM unnest($1::text[], $2::text[]) AS t(c, p)`,
        [chunk.map((_, j) => communityOf(i + j)), column('profileId')],
      );
    }
  } finally {
    await client.end();
  }
}
