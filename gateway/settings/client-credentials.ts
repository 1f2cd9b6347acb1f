// The token endpoint's client-credentials grant (RFC 6749 §4.4) for service accounts: a POST to
// /oauth/token with grant_type=client_credentials is answered here, every other grant is handed to
// oidc-provider as before. The client authenticates with its id and secret, in a Basic
// Authorization header (client_secret_basic) or in the form (client_secret_post), or with a client
// assertion signed by its registered key (private_key_jwt, RFC 7523), one way only;
// identity checks the secret and the scope asked for and signs a short-lived access token for the
// gRPC API (services/identity/service-account-tokens.ts). Answers are OAuth's: 200 with the token,
// or {"error","error_description"} — invalid_client 401, invalid_scope and invalid_request 400.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { OAUTH_PATH } from '../../services/kit/public-urls.js';
import { asEdge, type SettingsContext } from './context.js';
import { traceOAuthAnswer } from './oauth-answers.js';

/** An OAuth refusal answered here (RFC 6749 §5.2). */
class TokenRefusal extends Error {
  constructor(readonly status: number, readonly error: string, description: string) {
    super(description);
  }
}

/** The form of a token request (the scope's parser leaves bodies as bytes, checked by oauth-input.ts). */
function formOf(request: FastifyRequest): URLSearchParams {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || !Buffer.isBuffer(request.body)) return new URLSearchParams();
  return new URLSearchParams(request.body.toString('utf8'));
}

/** RFC 6749 §2.3.1: each part of Basic credentials is form-encoded before they are joined. */
const formDecoded = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));

/** RFC 7523 §2.2: the one client assertion type. */
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface ClientAuthentication { clientId: string; clientSecret: string; clientAssertion: string }

/** The client's id and secret, or its assertion, from exactly one of the Basic header, the form's secret and the form's assertion. */
function clientOf(request: FastifyRequest, form: URLSearchParams): ClientAuthentication {
  const basic = /^basic\s+(.*)$/i.exec(request.headers.authorization ?? '');
  const inForm = form.has('client_secret');
  const assertion = form.get('client_assertion');
  if ([Boolean(basic), inForm, assertion !== null].filter(Boolean).length > 1) {
    throw new TokenRefusal(400, 'invalid_request', 'authenticate the client one way: the Basic header, the form\'s secret or a client assertion');
  }
  if (assertion !== null) {
    if (form.get('client_assertion_type') !== JWT_BEARER) throw new TokenRefusal(400, 'invalid_request', `client_assertion_type must be ${JWT_BEARER}`);
    return { clientId: form.get('client_id') ?? '', clientSecret: '', clientAssertion: assertion };
  }
  if (basic) {
    const credentials = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = credentials.indexOf(':');
    if (colon === -1) throw new TokenRefusal(401, 'invalid_client', 'client authentication failed');
    return { clientId: formDecoded(credentials.slice(0, colon)), clientSecret: formDecoded(credentials.slice(colon + 1)), clientAssertion: '' };
  }
  if (!inForm) throw new TokenRefusal(401, 'invalid_client', 'client authentication is required (client_secret_basic, client_secret_post or private_key_jwt)');
  return { clientId: form.get('client_id') ?? '', clientSecret: form.get('client_secret') ?? '', clientAssertion: '' };
}

/** identity's refusal as the token endpoint's answer; a failure that is not one is thrown on. */
function refusalOf(error: unknown): TokenRefusal {
  const remote = readRemoteError(error);
  const oauth = remote?.metadata.oauth_error;
  if (oauth === 'invalid_client') return new TokenRefusal(401, oauth, remote!.message);
  if (oauth) return new TokenRefusal(400, oauth, remote!.message);
  if (remote?.code === 'unavailable') return new TokenRefusal(503, 'temporarily_unavailable', 'try again shortly');
  throw error;
}

async function answer(context: SettingsContext, request: FastifyRequest, reply: FastifyReply, form: URLSearchParams) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache').type('application/json');
  try {
    const client = clientOf(request, form);
    let issued;
    try {
      issued = await context.clients.identity.issueServiceAccountToken({ ...client, scope: form.get('scope') ?? '' }, await asEdge(context, request));
    } catch (error) {
      throw refusalOf(error);
    }
    return reply.send({ access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn, scope: issued.scope });
  } catch (error) {
    if (!(error instanceof TokenRefusal)) throw error;
    if (error.status === 401) reply.header('www-authenticate', 'Basic realm="oauth"');
    return reply.code(error.status).send({ error: error.error, error_description: error.message });
  }
}

/**
 * In the provider's scope (after its input check): client_credentials here, every other token
 * request handed to the provider by `handOver`.
 */
export function registerClientCredentials(
  scope: FastifyInstance, context: SettingsContext, handOver: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  scope.post(`${OAUTH_PATH}/token`, async (request, reply) => {
    const form = formOf(request);
    if (form.get('grant_type') !== 'client_credentials') return handOver(request, reply);
    traceOAuthAnswer(request, reply);
    return answer(context, request, reply, form);
  });
}
