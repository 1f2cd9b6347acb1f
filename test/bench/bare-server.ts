// The baseline: a bare Fastify route answering a body of the same shape as GET /v1/me, with no
// authentication, no gRPC and no store. Run as its own process by the benchmark.
import Fastify from 'fastify';
import { meShapedBody } from './me-shaped-body.js';

const app = Fastify();
app.get('/v1/me', async () => meShapedBody);
// PORT=0: the OS picks; the line says which URL it got.
console.log(`ready ${await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })}`);
