// The public gRPC surface is one list, said twice: in the protos (an `@public` line in an RPC's
// comment, what the client guide and reflection users read) and in each service's access list
// (`direct`, what the door enforces). Every RPC of every service is called directly with an API
// key: the plumbing refuses it as not public, the public RPCs answer it (or refuse it for their
// own reasons: a scope it lacks, a request it gets wrong), and the two lists must be the same.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedInput } from '../deploy/admin/seed-schema.js';
import { BillingServiceDefinition } from '../proto/gen/expertnet/billing/v1/billing_service.js';
import { CommunitiesServiceDefinition } from '../proto/gen/expertnet/communities/v1/communities_service.js';
import { EnrichmentServiceDefinition } from '../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import { IdentityServiceDefinition } from '../proto/gen/expertnet/identity/v1/identity_service.js';
import { SearchServiceDefinition } from '../proto/gen/expertnet/search/v1/search_service.js';
import { repoRoot } from '../services/kit/paths.js';
import { asBearer, directClients, outcomeOf, type DirectClients } from './helpers/direct-grpc.js';
import { liveKey } from './helpers/keys.js';
import { startTestSystem, type TestSystem } from './helpers/test-system.js';

const key = liveKey();
const seed: SeedInput = {
  users: [{ id: 'u_ada', email: 'ada@example.org', name: 'Ada', plan: 'paid' }],
  keys: [{ id: 'k_ada', secret: key, owner: { user: 'u_ada' }, scopes: ['profile:read'], requested_rate: 6000 }],
};

/** `Service.Rpc` of every RPC whose leading comment has the line `@public`, from the .proto files. */
function publicInProtos(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.proto')) {
        let service = '';
        let comment: string[] = [];
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          const trimmed = line.trim();
          service = /^service (\w+)/.exec(trimmed)?.[1] ?? service;
          const rpc = /^rpc (\w+)\(/.exec(trimmed)?.[1];
          if (rpc && comment.includes('@public')) found.push(`${service}.${rpc}`);
          comment = trimmed.startsWith('//') ? [...comment, trimmed.slice(2).trim()] : [];
        }
      }
    }
  };
  walk(join(repoRoot, 'proto', 'expertnet'));
  return found.sort();
}

describe('the public gRPC surface', () => {
  let sys: TestSystem;
  let team: DirectClients;

  beforeAll(async () => {
    sys = await startTestSystem({ seed });
    team = directClients(sys.grpcAddresses);
  }, 120_000);
  afterAll(async () => {
    team?.close();
    await sys?.stop();
  });

  it('is what the protos mark @public, and every other RPC refuses a direct caller with PERMISSION_DENIED', async () => {
    const answered: string[] = [];
    const services = [
      [team.identity, IdentityServiceDefinition],
      [team.communities, CommunitiesServiceDefinition],
      [team.search, SearchServiceDefinition],
      [team.enrichment, EnrichmentServiceDefinition],
      [team.billing, BillingServiceDefinition],
    ] as const;
    for (const [serviceClient, service] of services) {
      const client = serviceClient as unknown as Record<string, (request: object, options: object) => Promise<unknown>>;
      for (const [method, { name: rpc }] of Object.entries(service.methods as Record<string, { name: string }>)) {
        const outcome = await outcomeOf(client[method]!({}, asBearer(key)));
        const notPublic = !outcome.ok && outcome.status === 'PERMISSION_DENIED' && outcome.message.includes('is not a public RPC');
        if (!notPublic) answered.push(`${service.name}.${rpc}`);
        // Whatever the answer, the credential itself was accepted: no RPC finds the key unauthenticated.
        if (!outcome.ok) expect(outcome.status, `${rpc}: ${outcome.message}`).not.toBe('UNAUTHENTICATED');
        if (!outcome.ok) expect(outcome.reason, `${rpc} answers in the contract's error model`).toBeDefined();
      }
    }
    expect(answered.sort()).toEqual(publicInProtos());
    expect(publicInProtos()).toEqual(expect.arrayContaining([
      'CommunitiesService.ListCommunities', 'CommunitiesService.ListMembers', 'CommunitiesService.GetMember',
      'CommunitiesService.AddMembers', 'CommunitiesService.RemoveMember', 'SearchService.StartSearch', 'SearchService.GetSearch',
      'EnrichmentService.StartCommunityRun', 'EnrichmentService.GetRun', 'EnrichmentService.ListRuns',
      'BillingService.GetCallerUsage', 'IdentityService.DescribeCredential',
    ]));
  }, 120_000);
});
