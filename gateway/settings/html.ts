// Server-rendered HTML: a tagged template that escapes every interpolated value unless it is
// already markup (another `html` result), and the page layout every screen shares. No inline
// script or style anywhere: the Content-Security-Policy allows only this origin's assets.
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Markup | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Markup) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Markup(out);
}

export interface PageUser {
  name: string;
  email: string;
}

/** A hidden field with the form's CSRF token: every state-changing form carries one. */
export function csrfField(token: string): Markup {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

const SCREENS = [
  ['/keys', 'API keys'],
  ['/service-accounts', 'Service accounts'],
  ['/communities', 'Communities'],
  ['/credits', 'Credits'],
  ['/usage', 'Usage'],
  ['/requests', 'Requests'],
  ['/webhooks', 'Webhooks'],
] as const;

/** The whole page: navigation (when signed in), a flash message, the screen's content. */
export function page(options: { title: string; user?: PageUser; csrf?: string; current?: string; notice?: { kind: 'error' | 'ok'; text: string }; body: Markup }): string {
  const { title, user, csrf, current, notice, body } = options;
  const nav = user && csrf
    ? html`<nav aria-label="Settings"><ul>${SCREENS.map(([href, label]) =>
        html`<li><a href="${href}"${current === href ? new Markup(' aria-current="page"') : ''}>${label}</a></li>`)}</ul>
      <form method="post" action="/sign-out" class="inline">${csrfField(csrf)}<span class="who">${user.name}</span> <button type="submit">Sign out</button></form></nav>`
    : '';
  const flash = notice ? html`<p class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.text}</p>` : '';
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Expert Network settings</title>
<link rel="stylesheet" href="/assets/settings.css"><script src="/assets/settings.js" defer></script></head>
<body><header><a class="brand" href="/">Expert Network settings</a>${nav}</header>
<main id="main"><h1>${title}</h1>${flash}${body}</main></body></html>`.text}`;
}
