// The enrichment service. This release owns its schema and answers health and reflection;
// runs, providers and dry runs arrive with the enrichment issue.
import { EnrichmentServiceDefinition } from '../../proto/gen/expertnet/enrichment/v1/enrichment_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';

export function createEnrichmentService() {
  const registration: ServiceRegistration<typeof EnrichmentServiceDefinition> = {
    definition: EnrichmentServiceDefinition,
    implementation: {},
    access: {
      startCommunityRun: ['caller'],
      startSelfRun: ['caller'],
      getRun: ['caller'],
      getMemberEnrichment: ['caller', 'service'],
      eraseMemberEnrichment: ['service', 'operator'],
    },
  };
  return { registration, stop: async () => undefined };
}
