// The usage screen: for each of the user's keys (and OAuth grants used lately), its rate tier and
// the limits the API applies to it — the very policy the rate limiter enforces — and its requests
// per UTC day as a chart with the same numbers as a table; and its answers of the last 7 days by
// status class, from the request log, each a link to those requests there.
import { CredentialKind, KeyEnvironment } from '../../proto/gen/expertnet/common/v1/common.js';
import type { CredentialUsage, GetUsageResponse } from '../../proto/gen/expertnet/identity/v1/self_service.js';
import { rateLimitPolicy } from '../../services/kit/rate-limit/policy.js';
import { html, type Markup } from './html.js';
import { requestsText, usageChart } from './usage-chart.js';

/** The limits of a credential in words, from the rate limiter's own policy (docs/RATE-LIMITS.md). */
export function limitsText(c: CredentialUsage): string {
  const policy = rateLimitPolicy(c.rateTier, c.requestedRate);
  const burst = `bursts of up to ${policy.bucketSize} requests, refilling ${policy.refillPerMinute} per minute`;
  const daily = policy.dailyCap === null ? 'no daily cap' : `at most ${policy.dailyCap} requests per UTC day (reset at 00:00 UTC)`;
  return `${policy.tier === 'standard' ? 'Standard' : 'Restricted'} tier: ${burst}; ${daily}.`;
}

/** Credential id → what the person calls it: a key's name, an application's registered name (usage-routes.ts). */
export type CredentialNames = ReadonlyMap<string, string>;

function titleOf(c: CredentialUsage, name: string | undefined): Markup {
  if (c.kind === CredentialKind.CREDENTIAL_KIND_OAUTH) {
    return name ? html`OAuth grant to <strong>${name}</strong> (<code>${c.label}</code>)` : html`OAuth grant to <code>${c.label}</code>`;
  }
  return name ? html`Key <strong>${name}</strong> (<code>${c.label}…</code>)` : html`Key <code>${c.label}…</code>`;
}

function statusOf(c: CredentialUsage): string {
  const environment = c.kind === CredentialKind.CREDENTIAL_KIND_OAUTH ? 'OAuth' : c.environment === KeyEnvironment.KEY_ENVIRONMENT_TEST ? 'test' : 'live';
  return c.revokedAt ? `${environment}, revoked ${c.revokedAt.slice(0, 10)}` : `${environment}, active`;
}

function dailyTable(c: CredentialUsage, label: string): Markup {
  return html`<details><summary>Requests per day as a table<span class="visually-hidden"> (${label})</span></summary>
    <div class="table-wrap"><table><caption class="visually-hidden">Requests per UTC day, ${label}</caption>
    <thead><tr><th scope="col">UTC day</th><th scope="col">Requests</th></tr></thead>
    <tbody>${[...c.days].reverse().map((d) => html`<tr><td>${d.day}</td><td>${d.requests}</td></tr>`)}</tbody></table></div></details>`;
}

/** Its answers over the request log's retention by status class ("2xx: 12, 4xx: 3"), with a link to them in the log. */
function answersText(c: CredentialUsage): Markup {
  if (c.answers.length === 0) return html`none logged`;
  return html`${c.answers.map((a, i) => html`${i > 0 ? ', ' : ''}<a href="/requests?key=${encodeURIComponent(c.id)}&amp;status=${a.statusClass}xx">${a.statusClass}xx: ${a.requests}</a>`)}`;
}

function credentialSection(c: CredentialUsage, index: number, single: boolean, names: CredentialNames): Markup {
  const name = names.get(c.id);
  const label = `${c.kind === CredentialKind.CREDENTIAL_KIND_OAUTH ? 'OAuth grant to' : 'key'} ${name ?? c.label}`;
  const total = c.days.reduce((sum, d) => sum + d.requests, 0);
  const today = c.days[c.days.length - 1]?.requests ?? 0;
  const more = c.kind === CredentialKind.CREDENTIAL_KIND_API_KEY && !single
    ? html`<p><a href="/usage/keys/${encodeURIComponent(c.id)}">The last 90 days<span class="visually-hidden"> of ${label}</span></a></p>` : '';
  return html`<section class="usage" aria-labelledby="u-${index}">
    <h2 id="u-${index}">${titleOf(c, name)} <span class="hint">(${statusOf(c)})</span></h2>
    <dl class="facts"><dt>Scopes</dt><dd>${c.scopes.join(', ') || 'none'}</dd>
      <dt>Limits</dt><dd>${limitsText(c)}</dd>
      <dt>Today (UTC)</dt><dd>${requestsText(today)}</dd>
      <dt>Last ${c.days.length} days</dt><dd>${requestsText(total)}</dd>
      <dt>Answers, last 7 days</dt><dd>${answersText(c)}</dd></dl>
    ${usageChart(`chart-${index}`, label, c.days)}
    ${dailyTable(c, label)}${more}</section>`;
}

export function usageScreen(usage: GetUsageResponse, single: boolean, names: CredentialNames = new Map()): Markup {
  const intro = html`<p class="hint">Every request the API authenticated with a credential counts on its UTC day, including
    requests refused afterwards (a rate limit, a missing scope). From ${usage.fromDay} to ${usage.toDay}.</p>`;
  if (usage.credentials.length === 0) {
    return html`${intro}<p>You have no API keys yet, and no OAuth grant was used in this time. <a href="/keys">Create a key</a>.</p>`;
  }
  const back = single ? html`<p><a href="/usage">Usage of all your keys</a></p>` : '';
  return html`${intro}${usage.credentials.map((c, i) => credentialSection(c, i, single, names))}${back}`;
}
