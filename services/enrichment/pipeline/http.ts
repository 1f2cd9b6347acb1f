// The one way the providers talk HTTP: JSON over global fetch, each attempt under its own timeout
// and the caller's abort signal, retried with exponential backoff and jitter on what a retry can
// fix (429, 408, 5xx, network errors, timeouts) — waiting at least what Retry-After asks — and
// spaced by a rate limiter shared by every client of the same provider in this process, so that
// concurrent runs together stay under a provider's published limit. Failures are ProviderErrors
// whose messages never carry URLs, headers (the summary API key) or response bodies. Every string
// of an answer is made storable as it is read (services/kit/request-text.ts `repairedText`: NUL
// dropped, a lone surrogate escape turned into U+FFFD), so odd provider text never fails a write
// of the run's data or of the search document built from it.
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import pThrottle from 'p-throttle';
import type { z } from 'zod';
import { repairedText } from '../../kit/request-text.js';

export type ProviderErrorKind =
  /** 404: the record does not exist. */
  | 'not_found'
  /** Retries did not help: 429, 408, 5xx, network errors, timeouts. */
  | 'unavailable'
  /** Another 4xx: the request itself is refused (bad key, bad query). */
  | 'rejected'
  /** 2xx with a body that is not the JSON expected. */
  | 'bad_response';

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    /** What Retry-After asked for, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Backoff before retry n (0-based) is BACKOFF_MS · 2ⁿ, times a random factor in [1, 2), at most MAX_BACKOFF_MS. */
export const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;
/** A provider asking for a longer pause than this is treated as unavailable rather than waited for. */
const MAX_RETRY_AFTER_MS = 30_000;

export interface JsonClientOptions {
  /** Base URL; request paths are appended to it. */
  baseUrl: string;
  timeoutMs: number;
  retries: number;
  /** Requests per second across this process; unset: not limited. */
  ratePerSecond?: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** Added to every GET's query (OpenAlex's mailto and api_key). */
  query?: Record<string, string>;
}

// One limiter per provider URL and rate, for the whole process (see the header).
const limiters = new Map<string, () => Promise<void>>();

function limiterFor(baseUrl: string, ratePerSecond: number): () => Promise<void> {
  const key = `${baseUrl} ${ratePerSecond}`;
  let limiter = limiters.get(key);
  if (!limiter) {
    // strict: never more than `limit` calls in any 1 s window, not merely per calendar window.
    limiter = pThrottle({ limit: ratePerSecond, interval: 1000, strict: true })(async () => undefined);
    limiters.set(key, limiter);
  }
  return limiter;
}

/** A promise that rejects with the signal's reason when it aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** What undici's "fetch failed" means, by its cause's code ("ECONNREFUSED"); never its message, which may hold the URL. */
function networkReason(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' ? `connection failed (${code})` : 'connection failed';
}

export class JsonClient {
  private readonly base: string;
  private readonly limiter?: () => Promise<void>;

  constructor(private readonly options: JsonClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    if (options.ratePerSecond !== undefined) {
      if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
      this.limiter = limiterFor(this.base, options.ratePerSecond);
    }
  }

  /** GET base+path?query → parsed JSON. */
  get(path: string, query: Record<string, string | number> = {}, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(this.base + path);
    for (const [name, value] of Object.entries({ ...query, ...this.options.query })) url.searchParams.set(name, String(value));
    return this.request(url, { method: 'GET', headers: { accept: 'application/json', ...this.options.headers } }, signal);
  }

  /** POST base+path with a JSON body → parsed JSON. */
  post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const init = { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', ...this.options.headers }, body: JSON.stringify(body) };
    return this.request(new URL(this.base + path), init, signal);
  }

  private request(url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<unknown> {
    return pRetry(() => this.attempt(url, init, signal), {
      retries: this.options.retries,
      factor: 2,
      minTimeout: BACKOFF_MS,
      maxTimeout: MAX_BACKOFF_MS,
      randomize: true,
      signal,
      shouldRetry: ({ error }) => error instanceof ProviderError && error.kind === 'unavailable',
      // p-retry's own backoff follows this; together they wait at least what Retry-After asked.
      onFailedAttempt: async ({ error, retriesLeft, retriesConsumed }) => {
        if (!(error instanceof ProviderError) || error.retryAfterMs === undefined || retriesLeft === 0 || signal?.aborted) return;
        if (error.retryAfterMs > MAX_RETRY_AFTER_MS) {
          throw new ProviderError(`${error.message}, asked to retry after ${Math.round(error.retryAfterMs / 1000)} s`, 'unavailable');
        }
        const backoff = Math.min(BACKOFF_MS * 2 ** retriesConsumed, MAX_BACKOFF_MS);
        if (error.retryAfterMs > backoff) {
          await sleep(error.retryAfterMs - backoff, undefined, { signal }).catch((aborted: unknown) => {
            throw signal?.reason ?? aborted;
          });
        }
      },
    });
  }

  private async attempt(url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<unknown> {
    if (this.limiter) await abortable(this.limiter(), signal);
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const failed = (error: unknown): never => {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new ProviderError(`no answer within ${this.options.timeoutMs} ms`, 'unavailable');
      throw new ProviderError(networkReason(error), 'unavailable');
    };
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: combined });
    } catch (error) {
      return failed(error);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const status = `answered HTTP ${response.status}`;
      if (response.status === 404) throw new ProviderError(status, 'not_found');
      if (response.status === 429 || response.status === 408 || response.status >= 500) {
        throw new ProviderError(status, 'unavailable', retryAfterMs(response.headers.get('retry-after')));
      }
      throw new ProviderError(status, 'rejected');
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      return failed(error);
    }
    try {
      return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? repairedText(value) : value)) as unknown;
    } catch {
      throw new ProviderError('answered with a body that is not JSON', 'bad_response');
    }
  }
}

/** A provider's JSON read through a zod schema; a document of another shape is a bad response. */
export function parseAs<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderError('answered with a document of an unexpected shape', 'bad_response');
  return parsed.data;
}

/** A step's skip reason for a provider's failure ("ORCID unreachable: answered HTTP 503"). */
export function failureReason(provider: string, error: ProviderError): string {
  switch (error.kind) {
    case 'unavailable':
      return `${provider} unreachable: ${error.message}`;
    case 'rejected':
      return `${provider} refused the request: ${error.message}`;
    case 'not_found':
      return `${provider} answered not found`;
    case 'bad_response':
      return `${provider} ${error.message}`;
  }
}
