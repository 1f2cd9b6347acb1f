// A browser as seen over plain HTTP, for the settings web app: a cookie jar, no redirects followed
// (tests look at each 303), and the CSRF token read from the page's form, as a browser submits it.
import { mintSignInLink } from '../../deploy/launcher/sign-in-link.js';
import type { TestSystem } from './test-system.js';

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Keeps the cookies a response sets in `jar` (by name; a cleared or expired one is dropped). */
export function rememberCookies(jar: Map<string, string>, headers: Headers): void {
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    const name = pair!.slice(0, at);
    const value = pair!.slice(at + 1);
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

export class SettingsClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  private remember(headers: Headers): void {
    rememberCookies(this.cookies, headers);
  }

  async send(method: 'GET' | 'POST', path: string, form?: Record<string, string | string[]>): Promise<PageResponse> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ') };
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) params.append(name, v);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    this.remember(response.headers);
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  get(path: string): Promise<PageResponse> {
    return this.send('GET', path);
  }

  /** Opens `path`, then submits a form to `action` with the page's CSRF token plus `fields`. */
  async submit(path: string, action: string, fields: Record<string, string | string[]> = {}): Promise<PageResponse> {
    const page = await this.get(path);
    return this.send('POST', action, { _csrf: csrfTokenOf(page.text), ...fields });
  }

  /**
   * Mints a key with the settings form as a browser does: the POST, then (when it is the 303 of a
   * minted key) the created page it leads to, which shows the secret once. A refused form's page as is.
   */
  async mint(fields: Record<string, string | string[]>): Promise<PageResponse> {
    const posted = await this.submit('/keys', '/keys', fields);
    return posted.status === 303 ? this.get(posted.headers.get('location')!) : posted;
  }

  /** Signs in with a fresh one-time link for `userId`: opens it and presses Sign in. */
  async signIn(sys: TestSystem, userId: string): Promise<PageResponse> {
    const link = await mintSignInLink({ clients: sys.clients, signer: sys.signer, deadlineMs: 10_000 }, this.baseUrl, userId, 'test');
    return this.signInWith(link.url);
  }

  async signInWith(url: string): Promise<PageResponse> {
    const path = url.slice(this.baseUrl.length);
    const token = new URL(url).searchParams.get('token') ?? '';
    return this.submit(path, '/sign-in/link', { token });
  }
}

export function csrfTokenOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('the page has no CSRF field');
  return match[1]!;
}

export const SESSION_COOKIE = 'en_settings';
/** The CSRF secret's cookie, and the signed-out browser's pre-session its sign-in forms are bound to (over http). */
export const CSRF_COOKIE = 'en_csrf';
export const PRE_SESSION_COOKIE = 'en_presession';

/** One signed-in client per user id, in the order given. */
export async function signedInClients<const T extends readonly string[]>(
  sys: TestSystem, ...userIds: T): Promise<{ [K in keyof T]: SettingsClient }> {
  return Promise.all(userIds.map(async (userId) => {
    const client = new SettingsClient(sys.settingsUrl!);
    await client.signIn(sys, userId);
    return client;
  })) as Promise<{ [K in keyof T]: SettingsClient }>;
}
