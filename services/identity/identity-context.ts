// What the identity service's handlers and domain modules share: dependencies, the repositories,
// the usage recorders of keys and grants, the request log, and the OAuth access tokens when OAuth is configured.
import { batchedRead, perGroup } from '../kit/batched-read.js';
import type { ServiceDeps } from '../kit/service-deps.js';
import { type AccessTokens, createAccessTokens, type OAuthOptions } from './access-token.js';
import { createCredentialCache, type CredentialCache } from './credential-cache.js';
import { createGrantRepository, type GrantRepository } from './grant.repository.js';
import { createKeyRepository, type DescribedKeyRow, type KeyRepository } from './key.repository.js';
import { createPlaceholderRepository } from './placeholder.repository.js';
import { createRequestLogRetention, type RequestLogRetention } from './request-log-retention.js';
import { createRequestLogRepository, type RequestLogRepository } from './request-log.repository.js';
import { createServiceAccountRepository, type ServiceAccountRepository } from './service-account.repository.js';
import { createSeedLedgerRepository, type SeedLedgerRepository } from './seed-ledger.repository.js';
import { createUsageRecorder, type UsageRecorder } from './usage-recorder.js';
import { createUsageStore, GRANT_USAGE, KEY_USAGE, SERVICE_ACCOUNT_USAGE } from './usage-store.js';
import { createUserRepository, type UserRepository } from './user.repository.js';
import { createWebSessionRepository, type WebSessionRepository } from './web-session.repository.js';

export type IdentityDeps = Pick<ServiceDeps, 'db' | 'pepper' | 'clients' | 'signer' | 'deadlineMs' | 'logger' | 'credentialStamps'>;

export interface IdentityOptions {
  /** OAuth access tokens (docs/OAUTH.md). Absent: OAuth is off and every access token is refused. */
  oauth?: OAuthOptions;
}

export interface IdentityContext {
  deps: IdentityDeps;
  keys: KeyRepository;
  /**
   * The live key of a secret hash, described (`keys.describe`), read together with the other
   * requests of the same moment (batched-read.ts).
   */
  describeKeyByHash: (key: { secretHash: string; day: string }) => Promise<DescribedKeyRow | undefined>;
  grants: GrantRepository;
  /** Service accounts (service-accounts.ts) and their tokens' callers (service-account-tokens.ts). */
  serviceAccounts: ServiceAccountRepository;
  users: UserRepository;
  placeholders: ReturnType<typeof createPlaceholderRepository>;
  seedLedger: SeedLedgerRepository;
  /** The settings web app's sign-in links and sessions. */
  webSessions: WebSessionRepository;
  /** Requests counted per key (usage-recorder.ts). */
  keyUsage: UsageRecorder;
  /** Requests counted per OAuth grant. */
  grantUsage: UsageRecorder;
  /** Calls counted per service account. */
  serviceAccountUsage: UsageRecorder;
  /** The request log the edge reports to (request-log.ts), and its retention sweep. */
  requestLog: RequestLogRepository;
  requestLogRetention: RequestLogRetention;
  /** Absent: OAuth is not configured. */
  accessTokens: AccessTokens | undefined;
  /** API keys' callers kept in memory; absent without shared stamps (every request is read live). */
  callers: CredentialCache | undefined;
}

export function createIdentityContext(deps: IdentityDeps, options: IdentityOptions): IdentityContext {
  const keys = createKeyRepository(deps.db);
  const requestLog = createRequestLogRepository(deps.db);
  return {
    deps,
    keys,
    describeKeyByHash: batchedRead(
      perGroup(
        (ask: { secretHash: string; day: string }) => ask.day,
        async (asked, day): Promise<Array<DescribedKeyRow | undefined>> => {
          const found = new Map((await keys.describeByHashes(asked.map((a) => a.secretHash), day)).map((row) => [row.secret_hash, row]));
          return asked.map((a) => found.get(a.secretHash));
        },
      ),
    ),
    grants: createGrantRepository(deps.db),
    serviceAccounts: createServiceAccountRepository(deps.db),
    users: createUserRepository(deps.db),
    placeholders: createPlaceholderRepository(deps.db),
    seedLedger: createSeedLedgerRepository(deps.db),
    webSessions: createWebSessionRepository(deps.db),
    keyUsage: createUsageRecorder(createUsageStore(deps.db, KEY_USAGE), (err) => deps.logger.error({ err }, 'usage flush failed')),
    grantUsage: createUsageRecorder(createUsageStore(deps.db, GRANT_USAGE), (err) => deps.logger.error({ err }, 'grant usage flush failed')),
    serviceAccountUsage: createUsageRecorder(createUsageStore(deps.db, SERVICE_ACCOUNT_USAGE), (err) => deps.logger.error({ err }, 'service account usage flush failed')),
    requestLog,
    requestLogRetention: createRequestLogRetention(requestLog, (err) => deps.logger.error({ err }, 'request log sweep failed')),
    accessTokens: options.oauth ? createAccessTokens(options.oauth) : undefined,
    callers: deps.credentialStamps ? createCredentialCache(deps.credentialStamps) : undefined,
  };
}
