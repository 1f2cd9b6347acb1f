// The authorization server's answers as the rest of the settings app's: each carries the request's
// X-Request-Id, and each refusal or failure leaves a log line with it (status, method, route; the
// query, which may carry codes and state, is never logged). oidc-provider writes its answers to the
// raw response itself, past Fastify's onSend hooks, so both are done here around the hand-over.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';

/** The raw request as handed to the provider, carrying its id for the provider's error events. */
type HandedRequest = FastifyRequest['raw'] & { requestId?: string };

/** Before handing `request` to the provider: its id on the answer, and a log line once answered. */
export function traceOAuthAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.setHeader('x-request-id', request.id);
  (request.raw as HandedRequest).requestId = request.id;
  const path = (request.raw.url ?? '').split('?')[0];
  reply.raw.once('finish', () => {
    const status = reply.raw.statusCode;
    if (status < 400) return;
    const line = { status, method: request.method, path };
    if (status >= 500) request.log.error(line, 'oauth request failed');
    else request.log.info(line, 'oauth request refused');
  });
}

/** The provider's own failures (a 500 it answered), with the error, under the request's id. */
export function logProviderFailures(provider: Provider, logger: FastifyBaseLogger): void {
  provider.on('server_error', (ctx: { req: HandedRequest }, err: Error) => {
    logger.error({ err, requestId: ctx.req.requestId }, 'oauth provider error');
  });
}
