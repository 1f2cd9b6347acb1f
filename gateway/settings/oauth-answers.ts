// The authorization server's answers as the rest of the settings app's: each carries the request's
// X-Request-Id, and each refusal or failure leaves one log line with it — status, method, path (the
// query, which may carry codes and state, is never logged) and, for the provider's own refusals,
// its error, description and cause (a client metadata document's fetch refused for its address,
// say). oidc-provider writes its answers to the raw response itself, past Fastify's onSend hooks,
// so both are done here around the hand-over.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';

/** The raw request as handed to the provider: its id, and the error the provider refused it with. */
type HandedRequest = FastifyRequest['raw'] & { requestId?: string; providerError?: ProviderError };

interface ProviderError extends Error {
  error?: string;
  error_description?: string;
}

/** The provider's events for a refusal, one per endpoint it serves here. */
const REFUSAL_EVENTS = [
  'authorization.error', 'grant.error', 'registration_create.error', 'registration_read.error', 'revocation.error',
  'introspection.error', 'userinfo.error', 'jwks.error', 'discovery.error', 'end_session.error', 'end_session_confirm.error',
  'end_session_success.error', 'pushed_authorization_request.error',
] as const;

/** Before handing `request` to the provider: its id on the answer, and a log line once answered. */
export function traceOAuthAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.setHeader('x-request-id', request.id);
  const raw = request.raw as HandedRequest;
  raw.requestId = request.id;
  const path = (request.raw.url ?? '').split('?')[0];
  reply.raw.once('finish', () => {
    const status = reply.raw.statusCode;
    if (status < 400) return;
    const refusal = raw.providerError;
    const cause = refusal?.cause instanceof Error ? refusal.cause.message : undefined;
    const line = {
      status, method: request.method, path,
      ...(refusal && { error: refusal.error, reason: refusal.error_description }), ...(cause && { cause }),
    };
    if (status >= 500) request.log.error(line, 'oauth request failed');
    else request.log.info(line, 'oauth request refused');
  });
}

/** Keeps the provider's refusals for the answer's log line, and logs its own failures with the error. */
export function logProviderFailures(provider: Provider, logger: FastifyBaseLogger): void {
  for (const event of REFUSAL_EVENTS) {
    // (The typings give each event its own overload; they all pass the context and the error.)
    provider.on(event as 'authorization.error', (ctx: { req: HandedRequest }, err: ProviderError) => {
      ctx.req.providerError = err;
    });
  }
  provider.on('server_error', (ctx: { req: HandedRequest }, err: Error) => {
    logger.error({ err, requestId: ctx.req.requestId }, 'oauth provider error');
  });
}
