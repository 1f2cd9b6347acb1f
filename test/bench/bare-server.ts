// The baseline: a bare Fastify route answering a body of the same shape as GET /v1/me, with no
// authentication, no gRPC and no store. Run as its own process by the benchmark.
import Fastify from 'fastify';

const body = {
  key: { id: 'key_bench', prefix: 'svc_live_AAAAAA', environment: 'live', kind: 'personal', credential: 'api_key', rate_tier: 'standard', created_at: '2026-01-01T00:00:00.000Z' },
  owner: { type: 'user', id: 'u_bench', name: 'Bench User' },
  scopes: ['search:read', 'profile:read'],
  usage: { requests_today: 1, requests_this_month: 1, credits_spent_this_month: 0 },
  credit_balance: 1000,
};

const app = Fastify();
app.get('/v1/me', async () => body);
// PORT=0: the OS picks; the line says which URL it got.
console.log(`ready ${await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })}`);
