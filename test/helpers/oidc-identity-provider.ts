// A real OpenID Connect provider for the settings sign-in tests: oidc-provider (a certified
// implementation) on 127.0.0.1, port 0. Its login and consent steps answer at once as the test
// says — the account `nextLogin` names, or the person cancels (access_denied) when it is null —
// so a test drives the whole authorization code flow over plain HTTP. The client is registered
// once the system under test is running (its callback URL holds its bound port).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata } from 'oidc-provider';
import { rememberCookies } from './settings-browser-http.js';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestIdentityProvider {
  issuer: string;
  /** The people the provider knows, by subject. */
  accounts: Map<string, TestAccount>;
  /** Who signs in at the next login step; null: the person cancels. */
  nextLogin: string | null;
  /** Creates the provider with this app as its one client. */
  register(client: ClientMetadata): void;
  stop(): Promise<void>;
}

export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  let provider: Provider | undefined;
  const idp: TestIdentityProvider = {
    issuer: '',
    accounts: new Map(),
    nextLogin: null,
    register(client) {
      provider = new Provider(idp.issuer, {
        clients: [client],
        findAccount: (_ctx, sub) => {
          const account = idp.accounts.get(sub);
          return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
        },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        features: { devInteractions: { enabled: false } },
        cookies: { keys: ['test-identity-provider-cookie-key'] },
      });
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };

  /** The login and consent steps, answered as the test said. */
  async function interact(req: IncomingMessage, res: ServerResponse, p: Provider): Promise<void> {
    const details = await p.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      const result = idp.nextLogin === null
        ? { error: 'access_denied', error_description: 'the person cancelled' }
        : { login: { accountId: idp.nextLogin } };
      await p.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new p.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    await p.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }

  const server = createServer((req, res) => {
    if (!provider) {
      res.writeHead(503).end('no client registered yet');
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      interact(req, res, provider).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  idp.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return idp;
}

/**
 * Follows a browser's redirects from `url` across origins, keeping each origin's cookies in
 * `jars`, until an answer that is not a redirect or one that leaves for `stopAt`'s origin and path.
 * `form`, when given, is posted to `url` first (as a browser submits a form); redirects are GETs.
 */
export async function followRedirects(
  url: string, jars: Map<string, Map<string, string>>, stopAt?: (next: URL) => boolean, form?: Record<string, string>,
): Promise<{ url: string; status: number; location: string | null; text: string }> {
  let current = new URL(url);
  let body = form ? new URLSearchParams(form).toString() : undefined;
  for (let hop = 0; hop < 20; hop++) {
    const jar = jars.get(current.origin) ?? new Map<string, string>();
    jars.set(current.origin, jar);
    const headers: Record<string, string> = { cookie: [...jar].map(([n, v]) => `${n}=${v}`).join('; ') };
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(current, { method: body === undefined ? 'GET' : 'POST', body, redirect: 'manual', headers });
    body = undefined;
    rememberCookies(jar, response.headers);
    const location = response.headers.get('location');
    const text = await response.text();
    if (response.status < 300 || response.status >= 400 || !location) return { url: current.href, status: response.status, location, text };
    const next = new URL(location, current);
    if (stopAt?.(next)) return { url: current.href, status: response.status, location: next.href, text };
    current = next;
  }
  throw new Error(`more than 20 redirects from ${url}`);
}
