// Hosts in URLs, shared by the configuration's checks and the public URLs built from it (no
// imports: the configuration itself depends on it).

/** A host as it stands in a URL: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Whether a URL's hostname is this machine's (where plain http is tolerated for development). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
}
