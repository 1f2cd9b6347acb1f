// Refusals Fastify makes while routing, before any hook runs: a path whose percent-encoding cannot
// be decoded, or a path parameter longer than the router accepts. Fastify's own answers skip the
// envelope and X-Request-Id, come before authentication and quote the path; here they are answered
// like every other refusal: authentication first (401 without a valid credential, as on any path),
// then 400 in the envelope, with a fixed message.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fromRemote } from '../core/api-error.js';
import { presentedCredential } from '../core/credentials.js';
import type { Edge } from '../core/edge.js';
import { sendError } from './plugins/error-envelope.js';

/** The router's bound on one path parameter; ids are at most 128 characters, so any id reaches validation. */
export const MAX_PARAM_LENGTH = 1024;

function refusal(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'bad_request', 'the path is not valid percent-encoded UTF-8');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(400, 'invalid_request', `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`);
    default:
      return new ApiError(500, 'internal', 'internal error');
  }
}

export function frameworkErrors(edge: Edge) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    const answer = async (): Promise<ApiError> => {
      try {
        await edge.authenticate(presentedCredential(request.headers), request.id);
      } catch (authError) {
        return fromRemote(authError);
      }
      return refusal(error);
    };
    answer().then(
      (apiError) => {
        // 503: a dependency's outage, logged once by its state (services/kit/dependencies/state.ts).
        if (apiError.status >= 500 && apiError.status !== 503) request.log.error({ err: error }, 'routing failed');
        sendError(request, reply, apiError);
      },
      (err: unknown) => {
        request.log.error({ err }, 'routing refusal failed');
        sendError(request, reply, new ApiError(500, 'internal', 'internal error'));
      },
    );
  };
}
