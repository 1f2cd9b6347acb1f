// What the runtime hands every service it builds; each service takes the part it needs.
import type { Database } from './db/database.js';
import type { ServiceClients } from './grpc/client.js';
import type { TokenSigner } from './grpc/caller-token.js';
import type { CredentialStamps } from './credential-stamps.js';
import type { Logger } from './logger.js';

export interface ServiceDeps {
  db: Database;
  /** Server secret keying API-key hashes (identity only). */
  pepper: string;
  /** Clients of the other services; usable once every local server listens. */
  clients: ServiceClients;
  /**
   * The edge's signer, only in a process that also runs an edge role: a call that came in process
   * from the edge, without a token, is signed when it goes on to a service in another process.
   * Elsewhere a service forwards the token it received (grpc/acting.ts) and signs nothing.
   */
  signer?: TokenSigner;
  deadlineMs: number;
  logger: Logger;
  /**
   * The API keys' stamps the edge's rate limiter checks (identity only): set when identity and the
   * limiter share them (Redis, or one process); unset, identity answers every request live.
   */
  credentialStamps?: CredentialStamps;
}
