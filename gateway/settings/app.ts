// The settings web app as a Fastify application: a third surface of the edge beside REST and MCP,
// on its own port (SETTINGS_PORT), because it redirects to sign-in where the API answers 401. It
// owns no data and calls the services over gRPC as the signed-in user (docs/SETTINGS.md).
//   - helmet: a strict Content-Security-Policy (this origin's stylesheet and script only, no
//     framing: frame-ancestors 'none'), and the other protective headers;
//   - cookies, signed with a key derived from the server secrets; forms (urlencoded bodies);
//   - CSRF: a token in every state-changing form, bound to the browser's session (csrf.ts);
//   - routes: sign-in (a one-time link, or an OpenID Connect provider) and sign-out, the API keys,
//     service accounts, communities, credits, usage, request log and webhooks screens, the two assets.
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import type { Server } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from '../../services/kit/logger.js';
import { earlyServerFactory } from '../core/early-server.js';
import { requestIdFrom } from '../core/request-id.js';
import { SETTINGS_CSS, SETTINGS_JS } from './assets.js';
import type { SettingsContext } from './context.js';
import { registerCsrf } from './csrf.js';
import { renderError } from './errors.js';
import { settingsFrameworkErrors } from './framework-errors.js';
import { page, html } from './html.js';
import { registerCommunityRoutes } from './communities-routes.js';
import { registerConsentRoutes } from './consent-routes.js';
import { CSP_DIRECTIVES } from './csp.js';
import { registerCreditRoutes } from './credits-routes.js';
import { registerGrantRoutes } from './grants-routes.js';
import { registerKeyRoutes } from './keys-routes.js';
import { registerOidcRoutes } from './oidc-routes.js';
import { registerRequestRoutes } from './requests-routes.js';
import { registerServiceAccountRoutes } from './service-accounts-routes.js';
import { registerSignInRoutes } from './sign-in-routes.js';
import { registerUsageRoutes } from './usage-routes.js';
import { registerWebhookRoutes } from './webhooks-routes.js';
import { registerWritesOffRoutes } from './writes-off-routes.js';

export interface SettingsAppOptions extends SettingsContext {
  logger: Logger;
  /** Signs the app's cookies (the CSRF secret, the pre-session). */
  cookieSecret: string;
  /** Keys the binding of CSRF tokens to a session (csrf.ts). */
  csrfKey: string;
  /** A server already bound to the settings port (its URL names the OAuth issuer); else the app listens itself. */
  server?: Server;
}

const FORM_BODY_LIMIT_BYTES = 64 * 1024;

export async function buildSettingsApp(options: SettingsAppOptions): Promise<FastifyInstance> {
  const { logger, cookieSecret, csrfKey, server, ...context } = options;
  const early = server && earlyServerFactory(server);
  const app = Fastify({
    ...(early && { serverFactory: early.serverFactory }),
    loggerInstance: logger,
    bodyLimit: FORM_BODY_LIMIT_BYTES,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    frameworkErrors: settingsFrameworkErrors,
  }) as unknown as FastifyInstance;
  // A server bound early answers 503 until every route is registered (early-server.ts).
  if (early) app.addHook('onReady', async () => early.serveWhenReady());
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: CSP_DIRECTIVES,
    },
    strictTransportSecurity: context.secureCookies,
  });
  await app.register(fastifyCookie, { secret: cookieSecret });
  await app.register(fastifyFormbody);
  await registerCsrf(app, context, csrfKey);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setErrorHandler((error, request, reply) => renderError(error as Error, request, reply));
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).type('text/html').send(page({ title: 'Not found', notice: { kind: 'error', text: 'There is no such page.' }, body: html`<p><a href="/keys">Your settings</a></p>` })));
  app.get('/assets/settings.css', async (_request, reply) => reply.type('text/css').header('cache-control', 'max-age=300').send(SETTINGS_CSS));
  app.get('/assets/settings.js', async (_request, reply) => reply.type('text/javascript').header('cache-control', 'max-age=300').send(SETTINGS_JS));
  registerSignInRoutes(app, context);
  registerOidcRoutes(app, context);
  registerKeyRoutes(app, context);
  registerGrantRoutes(app, context);
  registerServiceAccountRoutes(app, context);
  registerCommunityRoutes(app, context);
  registerWritesOffRoutes(app, context);
  registerCreditRoutes(app, context);
  registerUsageRoutes(app, context);
  registerRequestRoutes(app, context);
  registerConsentRoutes(app, context);
  registerWebhookRoutes(app, context);
  return app;
}
