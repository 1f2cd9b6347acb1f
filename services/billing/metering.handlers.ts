// Metering: rates, charges exactly once, enforcement before billable work, self-enrich, reconciliation.
import type { BillingServiceDefinition } from '../../proto/gen/expertnet/billing/v1/billing_service.js';
import type { ServiceRegistration } from '../kit/grpc/server.js';
import type { BillingContext } from './billing-context.js';

type Handlers = ServiceRegistration<typeof BillingServiceDefinition>['implementation'];

export function createMeteringHandlers(
  _context: BillingContext,
): Pick<Handlers, 'charge' | 'checkFunds' | 'meterSelfEnrich' | 'listRates' | 'reconcile'> {
  return {};
}
