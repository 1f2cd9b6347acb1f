// The credits screen: the balance of each wallet the user may spend from, who pays their next
// global search and the form that saves their global-search wallet, and recent ledger entries
// (operation in words, payer, credits, time, the request id); and one wallet's entries, page by page.
import { PayerSource, type LedgerEntry, type ListSpendableWalletsResponse, type SpendableWallet } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import { OwnerType, type OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';
import { csrfField, html, type Markup } from './html.js';
import { operationWords } from './ledger-words.js';

export type WalletKind = 'user' | 'organization';

/** `user:ID` or `organization:ID`: the form value and the key of a wallet. */
export function walletKey(ref: OwnerRef | undefined): string {
  if (!ref?.id) return '';
  return `${ref.type === OwnerType.OWNER_TYPE_ORGANIZATION ? 'organization' : 'user'}:${ref.id}`;
}

function walletPath(ref: OwnerRef): string {
  const [kind, ...id] = walletKey(ref).split(':');
  return `/credits/wallets/${kind}/${encodeURIComponent(id.join(':'))}`;
}

function when(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 19) + ' UTC' : '';
}

function credits(amount: number): string {
  return amount > 0 ? `+${amount}` : String(amount);
}

const WHY: Partial<Record<PayerSource, string>> = {
  [PayerSource.PAYER_SOURCE_GLOBAL_PREFERENCE]: 'your saved preference',
  [PayerSource.PAYER_SOURCE_CALLER]: 'no preference is saved, and your personal wallet holds credits or no wallet does',
  [PayerSource.PAYER_SOURCE_EARLIEST_ORGANIZATION]: 'no preference is saved, your personal wallet is empty, and this is the earliest-joined organization with credits',
};

function walletLabel(w: SpendableWallet): string {
  return w.wallet!.owner!.type === OwnerType.OWNER_TYPE_ORGANIZATION ? `${w.name} (organization)` : `${w.name} (your personal wallet)`;
}

function balances(wallets: readonly SpendableWallet[]): Markup {
  return html`<div class="table-wrap"><table><caption>Wallets you can spend from</caption>
    <thead><tr><th scope="col">Wallet</th><th scope="col">Balance (credits)</th><th scope="col">Entries</th></tr></thead>
    <tbody>${wallets.map((w) => html`<tr><td>${walletLabel(w)}</td><td>${w.wallet!.balance}</td>
      <td><a href="${walletPath(w.wallet!.owner!)}">All entries<span class="visually-hidden"> of ${w.name}</span></a></td></tr>`)}</tbody></table></div>`;
}

function preferenceForm(overview: ListSpendableWalletsResponse, csrf: string): Markup {
  const saved = walletKey(overview.globalSearchPreference);
  const known = overview.wallets.some((w) => walletKey(w.wallet!.owner) === saved);
  const payer = overview.globalSearchPayer;
  const option = (value: string, label: string, id: string) =>
    html`<label><input type="radio" name="wallet" value="${value}" id="${id}"${saved === value || (!saved && value === 'none') ? html` checked` : ''} required> ${label}</label>`;
  return html`<section aria-labelledby="global-search"><h2 id="global-search">Global searches</h2>
    <p>A search of <code>scope: all</code> or <code>scope: public</code> names no community, so its wallet is chosen by
    your saved preference, else your personal wallet while it holds credits, else the earliest-joined organization that holds credits.</p>
    ${payer?.payer ? html`<p id="global-payer">Your next global search is charged to <strong>${payer.payerName}</strong>: ${WHY[payer.source] ?? 'the payer rules'}.</p>` : ''}
    ${saved && !known ? html`<p class="hint">Your saved preference (${saved}) is ignored: you no longer belong to that organization.</p>` : ''}
    <form method="post" action="/credits/preference">${csrfField(csrf)}
      <fieldset><legend>Wallet for global searches</legend>
      ${option('none', 'No preference (the order above)', 'wallet-none')}
      ${overview.wallets.map((w, i) => option(walletKey(w.wallet!.owner), walletLabel(w), `wallet-${i}`))}
      </fieldset>
      <button type="submit">Save preference</button></form></section>`;
}

/** The operation in words, its code beside for whoever matches it with the API; unknown: the code. */
function operation(code: string): Markup {
  const words = operationWords(code);
  return words ? html`${words} <span class="hint">(<code>${code}</code>)</span>` : html`<code>${code}</code>`;
}

/** Ledger entries, each naming its payer: the overview's recent ones or one wallet's page. */
export function entriesTable(entries: readonly LedgerEntry[], names: ReadonlyMap<string, string>, caption: string): Markup {
  if (entries.length === 0) return html`<p class="hint">No ledger entries yet.</p>`;
  // At phone width each entry is a stack of cells named by their column (class ledger, assets.ts).
  return html`<div class="table-wrap"><table class="ledger"><caption>${caption}</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Operation</th><th scope="col">Payer</th><th scope="col">Credits</th><th scope="col">Request id</th></tr></thead>
    <tbody>${entries.map((e) => html`<tr><td data-label="Time">${when(e.createdAt)}</td><td data-label="Operation">${operation(e.operation)}</td>
      <td data-label="Payer">${names.get(walletKey(e.owner)) ?? walletKey(e.owner)}</td><td data-label="Credits">${credits(e.amount)}</td>
      <td data-label="Request id">${e.requestId ? html`<code>${e.requestId}</code>` : html`<span class="hint">none</span>`}</td></tr>`)}</tbody></table></div>`;
}

export function namesOf(wallets: readonly SpendableWallet[]): Map<string, string> {
  return new Map(wallets.map((w) => [walletKey(w.wallet!.owner), w.name]));
}

export function creditsScreen(overview: ListSpendableWalletsResponse, recent: readonly LedgerEntry[], csrf: string): Markup {
  return html`${balances(overview.wallets)}${preferenceForm(overview, csrf)}
    <section aria-labelledby="recent"><h2 id="recent">Recent ledger entries</h2>
    ${entriesTable(recent, namesOf(overview.wallets), 'The newest entries of all your wallets')}</section>`;
}

export function walletScreen(wallet: SpendableWallet, entries: readonly LedgerEntry[], nextPageToken: string): Markup {
  const path = walletPath(wallet.wallet!.owner!);
  return html`<p>Balance: <strong>${wallet.wallet!.balance}</strong> credits.</p>
    ${entriesTable(entries, namesOf([wallet]), `Entries of ${wallet.name}, newest first`)}
    ${nextPageToken ? html`<p><a href="${path}?page=${encodeURIComponent(nextPageToken)}">Older entries</a></p>` : ''}
    <p><a href="/credits">Back to credits</a></p>`;
}
