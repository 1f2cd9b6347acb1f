// Where a webhook endpoint may point (docs/WEBHOOKS.md "Endpoint URLs"): an https URL whose host is,
// or resolves to, public unicast addresses only (services/kit/public-address.ts) — never loopback,
// private, link-local, unique-local, carrier-grade NAT, multicast, unspecified or another special
// range, IPv4-mapped IPv6 judged by the address it carries — so an endpoint cannot aim this
// system's requests at itself or its private network. Checked when the URL is set (creation, a
// PATCH of `url`); delivery checks the address again as each attempt connects (webhook-send.ts), so a name
// re-pointed after the check (DNS rebinding) gains nothing. WEBHOOK_ALLOW_PRIVATE_URLS=true (local
// development) lets `http` and every address through; the host must still resolve.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { allowedAddresses } from '../kit/public-address.js';
import { domainError } from '../kit/grpc/errors.js';

export const URL_MAX = 2048;
/** The longest a host's resolution may take before the creation is answered 503 (retry). */
export const LOOKUP_TIMEOUT_MS = 3000;

export interface WebhookUrlPolicy {
  /** Let `http` and loopback or private addresses through (WEBHOOK_ALLOW_PRIVATE_URLS). */
  allowPrivate: boolean;
  lookupTimeoutMs?: number;
  /** The resolver (default: the system's, dns.lookup); a suite passes one that fails or stalls. */
  lookup?: (host: string) => Promise<Array<{ address: string }>>;
}

const systemLookup = (host: string) => dns.lookup(host, { all: true, verbatim: true });

/** The resolver's answers that mean the name has no address: the URL's fault (400). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/** The host's addresses; a name that does not resolve is 400, a resolver that fails or is slow is 503. */
async function addressesOf(host: string, policy: WebhookUrlPolicy): Promise<string[]> {
  const lookup = policy.lookup ?? systemLookup;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), policy.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([lookup(host), timeout])).map((a) => a.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (NO_SUCH_NAME.has(code)) throw domainError('invalid_request', `url: the host ${host} does not resolve`);
    throw domainError('unavailable', `url: the host ${host} could not be resolved now (${code || 'lookup failed'}); retry shortly`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The URL as stored: absolute, https (http too where private URLs are allowed), without user name,
 * password or fragment, its host public. Anything else is 400 naming `url`.
 */
export async function checkedWebhookUrl(value: string, policy: WebhookUrlPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw domainError('invalid_request', 'url: not an absolute URL');
  }
  if (value.length > URL_MAX) throw domainError('invalid_request', `url: longer than ${URL_MAX} characters`);
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw domainError('invalid_request', 'url: must be an https URL');
  if (url.username || url.password) throw domainError('invalid_request', 'url: must not carry a user name or password');
  if (url.hash) throw domainError('invalid_request', 'url: must not carry a fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const allowed = allowedAddresses(policy.allowPrivate);
  if (isIP(host)) {
    if (!allowed(host)) throw domainError('invalid_request', `url: ${host} is not a public address`);
    return url.toString();
  }
  const addresses = await addressesOf(host, policy);
  const refused = addresses.find((address) => !allowed(address));
  if (addresses.length === 0) throw domainError('invalid_request', `url: the host ${host} does not resolve`);
  if (refused !== undefined) throw domainError('invalid_request', `url: the host ${host} resolves to ${refused}, which is not a public address`);
  return url.toString();
}
