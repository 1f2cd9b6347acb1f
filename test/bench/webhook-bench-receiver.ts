// The webhook bench's receiver (test/bench/webhook-bench.ts): node:http on port 0 answering 204 at
// once, noting when each delivery arrived. It verifies the Standard Webhooks signature of one
// delivery in `verifyEvery` only (the library's HMAC is the receiver's largest cost; the bench
// measures the sender, not the receiver). Also its ceiling: the receiver's own request rate from a
// plain local HTTP client posting a delivery-sized body the way a delivery does (a new connection
// per request, `capacity` requests in flight — the delivery worker's default).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

export interface Arrival {
  at: number;
  type: string;
  /** The search a `search.*` delivery is about. */
  searchId?: string;
}

export interface BenchReceiver {
  url: string;
  /** Deliveries in arrival order (the ceiling's requests are not kept). */
  arrivals: Arrival[];
  /** webhook-ids that came more than once (delivery is at least once). */
  repeats: number;
  verified: number;
  badSignatures: number;
  /** The endpoint's secret, once it is made: the sampled deliveries are verified with it. */
  secret?: string;
  close(): Promise<void>;
}

export async function startBenchReceiver(verifyEvery: number): Promise<BenchReceiver> {
  const seen = new Set<string>();
  const state: BenchReceiver = { url: '', arrivals: [], repeats: 0, verified: 0, badSignatures: 0, close: async () => undefined };
  let webhook: { secret: string; verifier: Webhook } | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      if (req.url === '/ceiling') return;
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      if (seen.has(id)) state.repeats++;
      seen.add(id);
      const parsed = JSON.parse(body) as { type: string; data?: { search_id?: string } };
      state.arrivals.push({ at, type: parsed.type, ...(parsed.data?.search_id ? { searchId: parsed.data.search_id } : {}) });
      if (state.secret && state.arrivals.length % verifyEvery === 0) {
        if (webhook?.secret !== state.secret) webhook = { secret: state.secret, verifier: new Webhook(state.secret) };
        state.verified++;
        try {
          webhook.verifier.verify(body, { 'webhook-id': id, 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) });
        } catch {
          state.badSignatures++;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}

function post(url: string, body: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface Ceiling {
  rate: number;
  p50: number;
  p95: number;
}

/** `requests` POSTs of a test delivery's body to `/ceiling`, `capacity` at a time: requests/s and round trips. */
export async function measureCeiling(receiver: BenchReceiver, requests: number, capacity: number): Promise<Ceiling> {
  const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { endpoint_id: 'we_ceiling0000000000000000', test: true } });
  const url = `${receiver.url}/ceiling`;
  for (let i = 0; i < 50; i++) await post(url, body); // warm-up
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: capacity }, async () => {
    while (next++ < requests) times.push(await post(url, body));
  }));
  const seconds = (performance.now() - started) / 1000;
  const sorted = times.sort((a, b) => a - b);
  return { rate: requests / seconds, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
}

/** The q-quantile of ascending `sorted` (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
