// `npm run admin -- <command>`: operator commands against a running system, over gRPC, as the
// operator. Prints JSON on stdout; errors go to stderr with a non-zero exit.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Status } from 'nice-grpc';
import { loadConfig, SERVICE_ROLES, type ServiceRole } from '../../services/kit/config.js';
import { keyEnvironments, ownerTypes, plans } from '../../services/kit/enums.js';
import { callAs, type ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { checkGrpcHealth } from '../../services/kit/grpc/health.js';
import { mcpResourceUrlOf } from '../../services/kit/mcp-resource.js';
import { applySeed } from './apply-seed.js';
import { watchReindex } from './reindex-progress.js';
import { SeedError } from './seed-schema.js';
import { mintSignInLink, settingsBaseUrl } from '../launcher/sign-in-link.js';
import { connectToServices } from '../launcher/wiring.js';
import {
  CreditWalletResponse,
  GetWalletResponse,
  ListLedgerEntriesResponse,
} from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import {
  CreateGrantResponse,
  IssueAccessTokenResponse,
  ListGrantsResponse,
  ListKeysResponse,
  MintKeyResponse,
  RevokeGrantResponse,
  RevokeKeyResponse,
  SetUserPlanResponse,
  UpsertUserResponse,
} from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import {
  ArchiveCommunityResponse,
  ListConsentRequestsResponse,
  ResolveConsentRequestResponse,
  SetApiWritesResponse,
  UpsertCommunityResponse,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';

const USAGE = `usage: npm run admin -- <command>
  seed FILE
  keys mint --user USER [--preset read] [--scopes s1,s2] [--allowlist c1,c2] [--rate N] [--env live|test]
  keys list --user USER
  keys revoke KEY_ID
  tokens issue --user USER --scopes s1,s2 [--client CLIENT] [--ttl SECONDS] [--rate N] [--audience rest|mcp | --resource URL]
                                                    (local issuer: a grant and a signed access token, for the
                                                    REST API by default; --audience mcp: for the MCP server)
  tokens grant --user USER --scopes s1,s2 [--client CLIENT] [--rate N]
                                                    (a grant only, for an external issuer's tokens)
  tokens list --user USER
  tokens revoke GRANT_ID                            (every token of the grant is refused from now on)
  users set-plan USER free|trial|paid
  users set-jit USER on|off                         (just-in-time write consent for the user's communities)
  users sign-in-link --user USER                    (a one-time link to the settings web app, valid 15 minutes;
                                                    built on SETTINGS_PUBLIC_URL, else HOST and SETTINGS_PORT)
  communities create ID --name NAME --owner OWNER   (refused when ID exists; OWNER is user:ID or organization:ID)
  communities archive ID [--unarchive]              (memberships survive; reads answer 403 while archived)
  writes enable|disable COMMUNITY                   (records a new API-write attestation version)
  consent list COMMUNITY
  consent approve|deny REQUEST_ID
  wallets credit OWNER --amount N --reference REF     (OWNER is user:ID or organization:ID)
  wallets show OWNER
  billing set-global-preference USER OWNER|none     (the wallet of USER's global searches: user:USER itself or
                                                    organization:ID of an organization USER belongs to; none clears)
  billing set-funding ORG [--community C] [--standing] [--budget N]
                                                    (how ORG covers charges named to community C, or to every
                                                    community it owns without --community: standing funding
                                                    and/or a delegation budget of N credits per UTC month)
  billing rates                                     (credits per unit of each billable operation, as configured)
  billing reconcile                                 (wallets whose balance differs from the sum of their ledger;
                                                    exits 1 when there is any)
  search reindex [--batch N] [--progress-every MS]  (re-indexes every membership and public claimed profile
                                                    into the search corpus, re-embedding documents whose
                                                    vector is another embedder's, removes the documents of
                                                    anyone else; progress lines on stderr every MS ms
                                                    (default 2000) and at the end; prints the counts)
  health`;

class UsageError extends Error {}

function ownerArg(value: string | undefined) {
  const match = /^(user|organization):(.+)$/.exec(value ?? '');
  if (!match) throw new UsageError('OWNER must be user:ID or organization:ID');
  return { type: ownerTypes.toEnum(match[1] as 'user' | 'organization'), id: match[2]! };
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function wholeNumber(value: string, what: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${what} must be a whole number`);
  return Number(value);
}

function positive(value: number, what: string): number {
  if (value < 1) throw new UsageError(`${what} must be at least 1`);
  return value;
}

/** Whether a Get* call finds its record (NOT_FOUND: no; any other failure is thrown). */
async function exists(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return true;
  } catch (error) {
    if (readRemoteError(error)?.status === Status.NOT_FOUND) return false;
    throw error;
  }
}

/**
 * The resource (RFC 8707 audience) a token is issued for: '' is the REST API (identity's
 * OAUTH_AUDIENCE); `mcp` is the MCP server's resource URL, built from this environment as the
 * server and identity build it; --resource names one verbatim (identity refuses one it does not serve).
 */
function tokenResource(audience: string | undefined, resource: string | undefined): string {
  if (audience !== undefined && resource !== undefined) throw new UsageError('give --audience or --resource, not both');
  if (resource !== undefined) return required(resource, '--resource');
  if (audience === undefined || audience === 'rest') return '';
  if (audience === 'mcp') return mcpResourceUrlOf(loadConfig());
  throw new UsageError('--audience is rest or mcp');
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

async function run(argv: string[], clients: ServiceClients, signer: TokenSigner, addresses: Record<ServiceRole, string>): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: 'string' }, scopes: { type: 'string' }, preset: { type: 'string' }, allowlist: { type: 'string' }, rate: { type: 'string' },
      env: { type: 'string' }, amount: { type: 'string' }, reference: { type: 'string' },
      client: { type: 'string' }, ttl: { type: 'string' }, audience: { type: 'string' }, resource: { type: 'string' },
      name: { type: 'string' }, owner: { type: 'string' }, unarchive: { type: 'boolean' },
      community: { type: 'string' }, standing: { type: 'boolean' }, budget: { type: 'string' },
      batch: { type: 'string' },
      'progress-every': { type: 'string' },
    },
  });
  const [group, action, ...rest] = positionals;
  if (group === 'help' || group === undefined) return { usage: USAGE.split('\n') };
  const actor = `cli:${process.env.USER ?? 'operator'}`;
  const call = await callAs(signer, { kind: 'operator', actor }, undefined, 30_000);

  if (group === 'seed') {
    const doc = JSON.parse(readFileSync(required(action, 'FILE'), 'utf8')) as unknown;
    return applySeed(clients, signer, doc, { actor: 'cli-seed' });
  }
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'keys mint': {
      const env = values.env ?? 'live';
      if (env !== 'live' && env !== 'test') throw new UsageError('--env is live or test');
      return MintKeyResponse.toJSON(await clients.identity.mintKey(
        {
          userId: required(values.user, '--user'), scopes: list(values.scopes), preset: values.preset ?? '',
          allowlist: values.allowlist === undefined ? undefined : { communityIds: list(values.allowlist) },
          requestedRate: values.rate ? Number(values.rate) : 0, environment: keyEnvironments.toEnum(env), id: '', secret: '',
        },
        call,
      ));
    }
    case 'keys list':
      return ListKeysResponse.toJSON(await clients.identity.listKeys({ userId: required(values.user, '--user'), pageSize: 200, pageToken: '' }, call));
    case 'keys revoke':
      return RevokeKeyResponse.toJSON(await clients.identity.revokeKey({ keyId: required(rest[0], 'KEY_ID') }, call));
    case 'tokens issue':
      return IssueAccessTokenResponse.toJSON(await clients.identity.issueAccessToken(
        {
          userId: required(values.user, '--user'), scopes: list(values.scopes), clientId: values.client ?? '',
          ttlSeconds: values.ttl === undefined ? 0 : positive(wholeNumber(values.ttl, '--ttl'), '--ttl'),
          requestedRate: values.rate ? wholeNumber(values.rate, '--rate') : 0,
          resource: tokenResource(values.audience, values.resource),
        },
        call,
      ));
    case 'tokens grant':
      return CreateGrantResponse.toJSON(await clients.identity.createGrant(
        {
          userId: required(values.user, '--user'), scopes: list(values.scopes), clientId: values.client ?? '',
          requestedRate: values.rate ? wholeNumber(values.rate, '--rate') : 0,
        },
        call,
      ));
    case 'tokens list':
      return ListGrantsResponse.toJSON(await clients.identity.listGrants({ userId: required(values.user, '--user'), pageSize: 200, pageToken: '' }, call));
    case 'tokens revoke':
      return RevokeGrantResponse.toJSON(await clients.identity.revokeGrant({ grantId: required(rest[0], 'GRANT_ID') }, call));
    case 'users set-plan': {
      const plan = required(rest[1], 'PLAN');
      if (!plans.isName(plan)) throw new UsageError('PLAN is free, trial or paid');
      return SetUserPlanResponse.toJSON(await clients.identity.setUserPlan({ userId: required(rest[0], 'USER'), plan: plans.toEnum(plan) }, call));
    }
    case 'users sign-in-link':
      return mintSignInLink({ clients, signer, deadlineMs: 30_000 }, settingsBaseUrl(loadConfig()), required(values.user, '--user'), actor);
    case 'users set-jit': {
      const userId = required(rest[0], 'USER');
      const setting = required(rest[1], 'on|off');
      if (setting !== 'on' && setting !== 'off') throw new UsageError('set-jit takes on or off');
      // UpsertUser replaces the whole record: read it first and change only jit_consent.
      const { user } = await clients.identity.getUser({ userId }, call);
      return UpsertUserResponse.toJSON(await clients.identity.upsertUser({ user: { ...user!, jitConsent: setting === 'on' } }, call));
    }
    case 'communities create': {
      const id = required(rest[0], 'ID');
      // UpsertCommunity would overwrite an existing community (name, owner, archived, write
      // attestation): creating refuses an id that is taken.
      if (await exists(() => clients.communities.getCommunity({ communityId: id }, call))) {
        throw new Error(`community ${id} already exists`);
      }
      return UpsertCommunityResponse.toJSON(await clients.communities.upsertCommunity(
        { community: { id, name: required(values.name, '--name'), billingOwner: ownerArg(values.owner), archived: false, apiWrites: false } },
        call,
      ));
    }
    case 'communities archive':
      return ArchiveCommunityResponse.toJSON(await clients.communities.archiveCommunity(
        { communityId: required(rest[0], 'ID'), archived: !values.unarchive },
        call,
      ));
    case 'writes enable':
    case 'writes disable':
      return SetApiWritesResponse.toJSON(await clients.communities.setApiWrites(
        { communityId: required(rest[0], 'COMMUNITY'), enabled: action === 'enable', actor },
        call,
      ));
    case 'consent list':
      return ListConsentRequestsResponse.toJSON(await clients.communities.listConsentRequests(
        { communityId: required(rest[0], 'COMMUNITY'), pageSize: 200, pageToken: '' },
        call,
      ));
    case 'consent approve':
    case 'consent deny':
      return ResolveConsentRequestResponse.toJSON(await clients.communities.resolveConsentRequest(
        { consentRequestId: required(rest[0], 'REQUEST_ID'), approve: action === 'approve', actor },
        call,
      ));
    case 'wallets credit':
      return CreditWalletResponse.toJSON(await clients.billing.creditWallet(
        { owner: ownerArg(rest[0]), amount: Number(required(values.amount, '--amount')), reference: required(values.reference, '--reference'), note: '' },
        call,
      ));
    case 'wallets show': {
      const owner = ownerArg(rest[0]);
      const [wallet, ledger] = await Promise.all([
        clients.billing.getWallet({ owner }, call),
        clients.billing.listLedgerEntries({ owner, pageSize: 20, pageToken: '' }, call),
      ]);
      return { ...(GetWalletResponse.toJSON(wallet) as object), recent: ListLedgerEntriesResponse.toJSON(ledger) };
    }
    case 'billing set-global-preference': {
      const userId = required(rest[0], 'USER');
      const target = required(rest[1], 'OWNER|none');
      const wallet = target === 'none' ? undefined : ownerArg(target);
      await clients.billing.setGlobalSearchPreference({ userId, wallet }, call);
      return { user_id: userId, global_search_wallet: target === 'none' ? null : target };
    }
    case 'billing set-funding': {
      const organizationId = required(rest[0], 'ORG');
      const budget = values.budget === undefined ? 0 : wholeNumber(values.budget, '--budget');
      const standing = values.standing ?? false;
      await clients.billing.setOrganizationFunding(
        { organizationId, communityId: values.community ?? '', standingFunding: standing, delegationBudgetPerMonth: budget },
        call,
      );
      return { organization_id: organizationId, community_id: values.community ?? null, standing_funding: standing, delegation_budget_per_month: budget };
    }
    case 'billing rates': {
      const { rates } = await clients.billing.listRates({}, call);
      return { rates: rates.map((r) => ({ operation: r.operation, credits_per_unit: r.creditsPerUnit })) };
    }
    case 'billing reconcile': {
      const result = await clients.billing.reconcile({}, call);
      const mismatches = result.mismatches.map((m) => ({
        owner: `${m.owner ? ownerTypes.toName(m.owner.type, 'owner.type') : 'unknown'}:${m.owner?.id ?? ''}`,
        balance: m.balance,
        ledger_sum: m.ledgerSum,
      }));
      if (mismatches.length > 0) {
        console.error(`error: ${mismatches.length} wallet(s) do not match their ledger`);
        process.exitCode = 1;
      }
      return { wallets_checked: result.walletsChecked, mismatches };
    }
    case 'search reindex': {
      const batchSize = values.batch === undefined ? 0 : positive(wholeNumber(values.batch, '--batch'), '--batch');
      // A large corpus takes a while: this call gets its own, longer deadline.
      const long = await callAs(signer, { kind: 'operator', actor }, undefined, 30 * 60_000);
      // Progress on stderr while it runs (the run's own record in the search service, polled).
      const poll = async () => clients.search.getReindexRun({ run: 0 }, await callAs(signer, { kind: 'operator', actor }, undefined, 10_000));
      const before = (await poll()).run;
      const every = values['progress-every'] === undefined ? 2000 : positive(wholeNumber(values['progress-every'], '--progress-every'), '--progress-every');
      const watch = watchReindex(poll, before, (line) => process.stderr.write(`${line}\n`), every);
      const r = await clients.communities.reindexSearch({ batchSize }, long).finally(() => watch.stop());
      return { profiles: r.profiles, membership_documents: r.membershipDocuments, public_documents: r.publicDocuments, batches: r.batches, removed: r.removed };
    }
    case 'health': {
      const entries = await Promise.all(SERVICE_ROLES.map(async (s) => [s, { address: addresses[s], serving: await checkGrpcHealth(addresses[s]) }] as const));
      const report = Object.fromEntries(entries);
      if (entries.some(([, r]) => !r.serving)) {
        process.exitCode = 1;
      }
      return report;
    }
  }
  throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
}

async function main(): Promise<void> {
  const { addresses, clients, signer } = connectToServices(loadConfig());
  try {
    const result = await run(process.argv.slice(2), clients, signer, addresses);
    console.log(JSON.stringify(result, null, 2));
  } catch (error) {
    const remote = readRemoteError(error);
    if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
    else if (remote) console.error(`error: ${remote.code ?? 'grpc'}: ${remote.message}`);
    else if (error instanceof SeedError) console.error(error.message);
    else console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    clients.close();
  }
}

await main();
