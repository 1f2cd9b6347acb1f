// The request log screen: the signed-in user's recent API and MCP requests, newest first — when,
// method, path or tool, status, latency, request id, and the key or application that made each —
// under a GET filter form (key or application, status class, request id), with a link to the
// next, older page. The filter changes nothing, so it carries no CSRF token.
import { CredentialKind } from '../../proto/gen/expertnet/common/v1/common.js';
import type { LoggedRequest } from '../../proto/gen/expertnet/identity/v1/request_log.js';
import type { CredentialUsage } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import { html, type Markup } from './html.js';

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

export interface RequestFilter {
  key: string;
  status: string;
  requestId: string;
}

/** The query string of the filter (and a page token), empty fields left out. */
export function filterQuery(filter: RequestFilter, page = ''): string {
  const params = new URLSearchParams();
  if (filter.key) params.set('key', filter.key);
  if (filter.status) params.set('status', filter.status);
  if (filter.requestId) params.set('request_id', filter.requestId);
  if (page) params.set('page', page);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** A credential as a person knows it: the key's name and prefix, or the application's client id. */
function credentialText(r: LoggedRequest): Markup {
  if (r.request!.credentialKind === CredentialKind.CREDENTIAL_KIND_OAUTH) return html`OAuth: <code>${r.credentialLabel}</code>`;
  return r.credentialName ? html`${r.credentialName} <code>${r.credentialLabel}…</code>` : html`<code>${r.credentialLabel}…</code>`;
}

function row(r: LoggedRequest): Markup {
  const q = r.request!;
  const what = q.tool ? html`<code>${q.path}</code> tool <code>${q.tool}</code>` : html`<code>${q.path}</code>`;
  // data-label: on a phone each row stacks its cells under their column's name (the keys table's layout).
  return html`<tr><td data-label="Time (UTC)"><time datetime="${q.at}">${(q.at ?? '').slice(0, 19).replace('T', ' ')}</time></td>
    <td data-label="Method">${q.method}</td><td data-label="Path or tool">${what}</td><td data-label="Status">${q.status}</td>
    <td data-label="Latency">${q.latencyMs} ms</td><td data-label="Request id"><code>${q.requestId}</code></td>
    <td data-label="Key or application">${credentialText(r)}</td></tr>`;
}

function option(value: string, label: string, chosen: string): Markup {
  return html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`;
}

function filterForm(credentials: CredentialUsage[], filter: RequestFilter): Markup {
  const labelOf = (c: CredentialUsage) => (c.kind === CredentialKind.CREDENTIAL_KIND_OAUTH ? `OAuth: ${c.label}` : `Key ${c.label}…`);
  return html`<form method="get" action="/requests" class="filters">
    <label for="f-key">Key or application</label>
    <select id="f-key" name="key">${option('', 'All', filter.key)}${credentials.map((c) => option(c.id, labelOf(c), filter.key))}</select>
    <label for="f-status">Status</label>
    <select id="f-status" name="status">${option('', 'Any', filter.status)}${STATUS_CLASSES.map((s) => option(s, s, filter.status))}</select>
    <label for="f-request-id">Request id</label>
    <input type="text" id="f-request-id" name="request_id" maxlength="128" value="${filter.requestId}">
    <p><button type="submit">Filter</button> <a href="/requests">Clear</a></p></form>`;
}

export function requestsScreen(
  requests: LoggedRequest[], credentials: CredentialUsage[], filter: RequestFilter, nextPageToken: string, retentionDays: number,
): Markup {
  const intro = html`<p class="hint">The requests your API keys and OAuth applications made over the last ${retentionDays} days (at
    most the newest 10,000), newest first, in UTC. A request shows here within a few seconds of its answer. A request without a
    valid key or token belongs to no one and is not shown; paths are shown without their query string, and no body is kept.</p>`;
  const filtered = Boolean(filter.key || filter.status || filter.requestId);
  const table = requests.length === 0
    ? html`<p>${filtered ? 'No request matches this filter.' : `No request in the last ${retentionDays} days.`}</p>`
    : html`<div class="table-wrap"><table class="requests"><caption class="visually-hidden">Your recent requests</caption>
      <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Method</th><th scope="col">Path or tool</th><th scope="col">Status</th>
      <th scope="col">Latency</th><th scope="col">Request id</th><th scope="col">Key or application</th></tr></thead>
      <tbody>${requests.map(row)}</tbody></table></div>`;
  const older = nextPageToken ? html`<p><a href="/requests${filterQuery(filter, nextPageToken)}">Older requests</a></p>` : '';
  return html`${intro}${filterForm(credentials, filter)}${table}${older}`;
}
