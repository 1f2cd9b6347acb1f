// Idempotency-Key on the routes that declare `config: { idempotent: true }` (the two community
// write POSTs; docs/IDEMPOTENCY.md). The header is ignored on every other route (rule 14).
//
// Hooks, in the request's order:
//   preHandler — after authentication, rate limits, scopes and body parsing: checks the key
//                (400 invalid_request), then claims it in edge.idempotency_records. A live claim
//                is 409 conflict (Retry-After: seconds left on its lease; a claim whose holder is
//                known dead is taken over instead); a stored response with the same body
//                fingerprint is replayed verbatim with Idempotent-Replayed: true; another body
//                is 422 unprocessable. Otherwise the handler runs, holding the claim (its lease
//                renewed while it runs).
//   onSend     — before the response leaves: a 5xx, or a refusal (an error code of REFUSAL_CODES:
//                the service refused before the operation ran — reach, write gating, validation…)
//                releases the claim and stores nothing; any other outcome is stored, so a retry
//                after this response is a replay on every replica.
//   onResponse — now and then (at most once per purge interval per process) deletes expired records.
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialKind } from '../../../proto/gen/expertnet/common/v1/common.js';
import type { Database } from '../../../services/kit/db/database.js';
import { ApiError, isLoggedAsOutage } from '../../core/api-error.js';
import { bodyFingerprint } from '../../core/idempotency/fingerprint.js';
import { checkIdempotencyKey, errorCodeOf, isStoredOutcome, operationHeaders } from '../../core/idempotency/policy.js';
import { IdempotencyStore, type Claim, type RecordScope } from '../../core/idempotency/store.js';
import type {} from './authentication.js'; // request.caller
import type {} from './scopes.js'; // config.idempotent

export interface IdempotencyPluginOptions {
  db: Database;
  /** Lease of an in-flight claim, renewed while the operation runs (default 60 s). */
  leaseSeconds?: number;
  /** How long a stored response is replayed (default 48 h). */
  retentionSeconds?: number;
  /** At most one purge of expired records per this many milliseconds per process (default 60 s). */
  purgeIntervalMs?: number;
  /** A claim is renewed for at most this long (default 15 min), so a request that never answers cannot hold a key forever. */
  maxHoldSeconds?: number;
}

interface Held {
  claim: Claim;
  /** Headers on the reply when the claim was taken: the edge's own, not the operation's. */
  headersBefore: ReturnType<FastifyReply['getHeaders']>;
  heartbeat: NodeJS.Timeout;
  settled: boolean;
}

/** Method and concrete path of the route: the pattern with the (decoded) parameters put back. */
export function concreteRoute(request: FastifyRequest): string {
  const pattern = request.routeOptions.url ?? request.url.split('?')[0]!;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  const path = pattern
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''))
    .replace(/\*$/, () => encodeURIComponent(params['*'] ?? ''));
  return `${request.method} ${path}`;
}

function credentialKindName(kind: CredentialKind): string {
  switch (kind) {
    case CredentialKind.CREDENTIAL_KIND_API_KEY:
      return 'api_key';
    case CredentialKind.CREDENTIAL_KIND_OAUTH:
      return 'oauth';
    default:
      return 'unspecified';
  }
}

const unavailable = () =>
  new ApiError(503, 'unavailable', 'idempotency records are unavailable; retry shortly', {}, { 'retry-after': '1' });

export default fp<IdempotencyPluginOptions>(
  async (app, options) => {
    const store = new IdempotencyStore(options.db, {
      leaseSeconds: options.leaseSeconds,
      retentionSeconds: options.retentionSeconds,
    });
    const purgeIntervalMs = options.purgeIntervalMs ?? 60_000;
    const maxHoldMs = (options.maxHoldSeconds ?? 15 * 60) * 1000;
    const held = new WeakMap<FastifyRequest, Held>();
    const heartbeats = new Set<NodeJS.Timeout>();
    let lastPurge = 0;

    // Claims left by an earlier life of this process (or another process on this host that died)
    // are released at start-up, so the first retry after a crash runs at once.
    app.addHook('onReady', async () => {
      try {
        const released = await store.releaseDeadClaims();
        if (released > 0) app.log.info({ released }, 'idempotency claims of dead processes released');
      } catch (err) {
        app.log.warn({ err }, 'idempotency claims of dead processes could not be released');
      }
    });

    const stopHeartbeat = (entry: Held) => {
      clearInterval(entry.heartbeat);
      heartbeats.delete(entry.heartbeat);
    };

    app.addHook('preHandler', async (request, reply) => {
      if (request.routeOptions.config?.idempotent !== true) return;
      const header = request.headers['idempotency-key'];
      if (header === undefined) return;
      const check = checkIdempotencyKey(header);
      if (!check.ok) throw new ApiError(400, 'invalid_request', check.message);
      const caller = request.caller;
      if (!caller) return; // authentication refuses such a request before this hook

      const scope: RecordScope = {
        credentialKind: credentialKindName(caller.credential),
        credentialId: caller.credentialId,
        route: concreteRoute(request),
        key: check.key,
      };
      // Outside the store's try: a body the fingerprint refuses (nested too deep) is the client's 400,
      // not a store outage. The JSON parser refuses such bodies first; this is the second line.
      const fingerprint = bodyFingerprint(request.body);
      let result;
      try {
        result = await store.claim(scope, fingerprint);
      } catch (err) {
        if (!isLoggedAsOutage(err)) request.log.error({ err }, 'idempotency claim failed'); // an outage: logged once by the store's state
        throw unavailable();
      }

      switch (result.kind) {
        case 'in_flight':
          // Retry-After: the seconds until the holder's lease would run out (the holder renews it
          // while it runs, so the claim may well still be held then).
          throw new ApiError(409, 'conflict', 'a request with this Idempotency-Key is still in progress; retry shortly', {}, {
            'retry-after': String(result.retryAfterSeconds),
          });
        case 'mismatch':
          throw new ApiError(422, 'unprocessable', 'this Idempotency-Key was already used with a different request body');
        case 'replay': {
          const { statusCode, headers, body } = result.response;
          reply.code(statusCode);
          for (const [name, value] of Object.entries(headers)) reply.header(name, value);
          reply.header('idempotent-replayed', 'true');
          return body.length > 0 ? reply.send(body) : reply.send();
        }
        case 'claimed': {
          const started = Date.now();
          const renewEveryMs = Math.max(50, (store.leaseSeconds * 1000) / 3);
          const entry: Held = {
            claim: result.claim,
            headersBefore: { ...reply.getHeaders() },
            settled: false,
            heartbeat: setInterval(() => {
              if (Date.now() - started > maxHoldMs) return stopHeartbeat(entry);
              store.renew(result.claim).then(
                (ours) => {
                  if (!ours) stopHeartbeat(entry);
                },
                (err: unknown) => {
                  if (!isLoggedAsOutage(err)) request.log.warn({ err }, 'idempotency lease renewal failed');
                },
              );
            }, renewEveryMs),
          };
          entry.heartbeat.unref();
          heartbeats.add(entry.heartbeat);
          held.set(request, entry);
          return;
        }
      }
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const entry = held.get(request);
      if (!entry || entry.settled) return payload;
      entry.settled = true;
      stopHeartbeat(entry);
      const status = reply.statusCode;
      try {
        const bytes =
          payload === null || payload === undefined
            ? Buffer.alloc(0)
            : typeof payload === 'string'
              ? Buffer.from(payload, 'utf8')
              : Buffer.isBuffer(payload)
                ? payload
                : undefined; // a stream: cannot be stored
        if (bytes === undefined) {
          request.log.warn('idempotent route answered with a stream: nothing stored');
          await store.release(entry.claim);
        } else if (isStoredOutcome(status, status >= 400 ? errorCodeOf(bytes) : undefined)) {
          const headers = operationHeaders(entry.headersBefore, reply.getHeaders());
          const stored = await store.complete(entry.claim, { statusCode: status, headers, body: bytes });
          if (!stored) request.log.warn('idempotency claim was taken over before the response was stored');
        } else {
          await store.release(entry.claim);
        }
      } catch (err) {
        // The response still goes out; the claim is released so that a retry is not blocked. An
        // outage of the store is logged once per change of state, not here per request.
        if (!isLoggedAsOutage(err)) request.log.error({ err }, 'idempotency record could not be stored');
        await store.release(entry.claim).catch(() => undefined);
      }
      return payload;
    });

    app.addHook('onResponse', async (request) => {
      if (request.routeOptions.config?.idempotent !== true) return;
      const now = Date.now();
      if (now - lastPurge < purgeIntervalMs) return;
      lastPurge = now;
      store.purgeExpired().then(
        (purged) => {
          if (purged > 0) request.log.info({ purged }, 'expired idempotency records purged');
        },
        (err: unknown) => {
          if (!isLoggedAsOutage(err)) request.log.warn({ err }, 'idempotency purge failed');
        },
      );
    });

    app.addHook('onClose', async () => {
      for (const heartbeat of heartbeats) clearInterval(heartbeat);
      heartbeats.clear();
    });
  },
  { name: 'idempotency', dependencies: ['authentication'] },
);
