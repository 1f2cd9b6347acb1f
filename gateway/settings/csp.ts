// The settings pages' Content-Security-Policy (docs/SETTINGS.md "Protections"): helmet sends it on
// every page; the OAuth consent page sends it with its client's redirect target added to
// form-action, since the answer to its form redirects there.
/** The pages' Content-Security-Policy: this origin's stylesheet and script, forms to this origin, no framing. */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'none'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'"], connectSrc: ["'self'"],
  formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"],
};

/** The same policy as a header value, with more sources a form may end at (the consent page's client). */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return Object.entries({ ...CSP_DIRECTIVES, formAction: [...CSP_DIRECTIVES.formAction, ...formTargets] })
    .map(([name, sources]) => `${kebab(name)} ${sources.join(' ')}`)
    .join(';');
}
