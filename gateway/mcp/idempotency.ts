// idempotency_key on the add_community_members and start_community_enrichment tools, over the edge's
// own idempotency records (the core IdempotencyStore and policy that the REST plugin uses, table
// edge.idempotency_records), with REST's rules: a key is scoped to the credential and the target;
// the same key with the same arguments within 48 h replays the stored result; other arguments →
// unprocessable; a call still running → conflict; refusals and 5xx are not stored (the claim is
// released).
//
// Records are kept apart from REST's: the route of an MCP record is `MCP <tool> <target>`, never a
// REST route, because REST fingerprints the raw JSON body while a tool sees arguments after schema
// parsing (defaults applied, names trimmed), so one key shared by both surfaces could be refused as
// "another body" for what the caller meant as the same request.
import { CredentialKind } from '../../proto/gen/expertnet/common/v1/common.js';
import type { Database } from '../../services/kit/db/database.js';
import type { Logger } from '../../services/kit/logger.js';
import { ApiError, fromRemote, isLoggedAsOutage } from '../core/api-error.js';
import type { CallerContext } from '../core/edge.js';
import { bodyFingerprint } from '../core/idempotency/fingerprint.js';
import { checkIdempotencyKey, isStoredOutcome } from '../core/idempotency/policy.js';
import { IdempotencyStore, type Claim } from '../core/idempotency/store.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { envelopeOf, errorResult, successResult } from './tool-results.js';

export interface IdempotentCall {
  tool: string;
  /** What the call acts on (a community id): part of the record's scope, like REST's concrete path. */
  target: string;
  key: string;
  /** The arguments that define "the same request" (fingerprinted). */
  args: unknown;
}

const REPLAYED = { 'expertnet/idempotent_replayed': true };

function credentialKindName(kind: CredentialKind): string {
  if (kind === CredentialKind.CREDENTIAL_KIND_API_KEY) return 'api_key';
  if (kind === CredentialKind.CREDENTIAL_KIND_OAUTH) return 'oauth';
  return 'unspecified';
}

export class McpIdempotency {
  private readonly store: IdempotencyStore;
  private lastPurge = 0;

  constructor(
    db: Database,
    private readonly logger?: Logger,
  ) {
    this.store = new IdempotencyStore(db);
    // Claims of an earlier life of this process are released at start-up (see the REST plugin).
    this.store.releaseDeadClaims().catch((err: unknown) => this.logger?.warn({ err }, 'idempotency claims of dead processes could not be released'));
  }

  async run(ctx: CallerContext, call: IdempotentCall, operation: () => Promise<object>): Promise<CallToolResult> {
    const check = checkIdempotencyKey(call.key);
    // REST's message, word for word: one refusal per rule on both surfaces.
    if (!check.ok) throw new ApiError(400, 'invalid_request', check.message);
    // Outside the store's try: a value the fingerprint refuses is the caller's error, not an outage.
    const fingerprint = bodyFingerprint(call.args);
    let result;
    try {
      result = await this.store.claim(
        {
          credentialKind: credentialKindName(ctx.caller.credential),
          credentialId: ctx.caller.credentialId,
          route: `MCP ${call.tool} ${call.target}`,
          key: check.key,
        },
        fingerprint,
      );
    } catch (err) {
      if (!isLoggedAsOutage(err)) this.logger?.error({ err }, 'idempotency claim failed'); // an outage: logged once by the store's state
      throw new ApiError(503, 'unavailable', 'idempotency records are unavailable; retry shortly');
    }
    switch (result.kind) {
      case 'in_flight':
        // No headers on a tool result: the wait travels in the envelope, as for rate limits.
        throw new ApiError(409, 'conflict', 'a call with this idempotency_key is still in progress; retry shortly', {
          retry_after_seconds: result.retryAfterSeconds,
        });
      case 'mismatch':
        throw new ApiError(422, 'unprocessable', 'this idempotency_key was already used with different arguments');
      case 'replay': {
        const body = JSON.parse(result.response.body.toString('utf8')) as Record<string, unknown>;
        if (result.response.statusCode < 400) return successResult(body, REPLAYED);
        return errorResult(body, REPLAYED);
      }
      case 'claimed':
        try {
          return await this.hold(result.claim, ctx, operation);
        } finally {
          this.purgeNowAndThen();
        }
    }
  }

  /** Expired records go at most once a minute per process (REST's plugin purges the same table). */
  private purgeNowAndThen(): void {
    const now = Date.now();
    if (now - this.lastPurge < 60_000) return;
    this.lastPurge = now;
    this.store.purgeExpired().catch((err: unknown) => this.logger?.warn({ err }, 'idempotency purge failed'));
  }

  private async hold(claim: Claim, ctx: CallerContext, operation: () => Promise<object>): Promise<CallToolResult> {
    const heartbeat = setInterval(() => {
      this.store.renew(claim).catch((err: unknown) => this.logger?.warn({ err }, 'idempotency lease renewal failed'));
    }, Math.max(50, (this.store.leaseSeconds * 1000) / 3));
    heartbeat.unref();
    let status = 200;
    let body: object;
    try {
      body = await operation();
    } catch (error) {
      const apiError = fromRemote(error);
      status = apiError.status;
      body = envelopeOf(apiError, ctx.requestId);
    } finally {
      clearInterval(heartbeat);
    }
    const code = status >= 400 ? (body as { error: { code: string } }).error.code : undefined;
    try {
      if (isStoredOutcome(status, code)) {
        await this.store.complete(claim, { statusCode: status, headers: {}, body: Buffer.from(JSON.stringify(body), 'utf8') });
      } else {
        await this.store.release(claim);
      }
    } catch (err) {
      // An outage of the store is logged once per change of state, not here per call.
      if (!isLoggedAsOutage(err)) this.logger?.error({ err }, 'idempotency record could not be stored');
      await this.store.release(claim).catch(() => undefined);
    }
    if (status >= 400) return errorResult(body);
    return successResult(body);
  }
}
