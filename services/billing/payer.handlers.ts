// Payer resolution, and the operator settings it reads (global-search preference, organization funding).
import type { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';

type Handlers = ServiceRegistration<typeof BillingServiceDefinition>['implementation'];

export function createPayerHandlers(_context: BillingContext): Pick<Handlers, 'resolvePayer' | 'setGlobalSearchPreference' | 'setOrganizationFunding'> {
  return {};
}
