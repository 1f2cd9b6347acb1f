// Where a client may have its answers sent: an https URL, or plain http only to a loopback address
// of this device — 127.0.0.1 (any of 127/8), [::1] or localhost — the native-app form of RFC 8252
// §7.3, with any port. The MCP authorization spec asks for exactly this of every client; an http
// URL elsewhere would carry the authorization code in clear over the network, and any other scheme
// could be claimed by another app. Applied to registrations and to client metadata documents alike.

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Why `uris` (a client's redirect_uris, as sent) may not be registered, or undefined when they may. */
export function redirectUriProblem(uris: unknown): string | undefined {
  // Not a list of strings: the provider's own checks refuse it as invalid_client_metadata.
  if (!Array.isArray(uris)) return undefined;
  for (const uri of uris) {
    if (typeof uri !== 'string') continue;
    const parsed = URL.parse(uri);
    if (!parsed) continue;
    if (parsed.protocol === 'https:') continue;
    if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) continue;
    return 'redirect_uris must be https URLs, or http URLs on a loopback address (127.0.0.1, [::1], localhost)';
  }
  return undefined;
}
