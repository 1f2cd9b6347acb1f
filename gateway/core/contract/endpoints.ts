// Every endpoint of the v1 REST surface, in the order of the specification's endpoint table, plus
// GET /v1/openapi.json, and the schemas published as named OpenAPI components.
import type { z } from 'zod';
import {
  DryRunEstimate,
  EnrichmentRequest,
  CommunityRunStarted,
  EnrichmentRun,
  EnrichmentRunPoll,
  RunItem,
  getCommunityEnrichmentRunEndpoint,
  getSelfEnrichmentRunEndpoint,
  SelfEnrichmentRequest,
  startCommunityEnrichmentEndpoint,
  startSelfEnrichmentEndpoint,
} from './enrichment.js';
import { CommunityPage, CommunitySummary, discoveryEndpoints, RunPage } from './discovery.js';
import { Event, EventPage, eventEndpoints, EventType } from './events.js';
import {
  CreateWebhookEndpointRequest,
  DeletedWebhookEndpoint,
  UpdateWebhookEndpointRequest,
  WebhookEndpoint,
  webhookEndpointEndpoints,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './webhook-endpoints.js';
import {
  WebhookDelivery,
  WebhookDeliveryAttempt,
  webhookDeliveryEndpoints,
  WebhookDeliveryPage,
  WebhookDeliveryWithAttempts,
} from './webhook-deliveries.js';
import { getMeEndpoint, getOwnProfileEndpoint, MeResponse, OwnProfile } from './me.js';
import {
  AddMemberItem,
  AddMemberResult,
  AddMembersRequest,
  AddMembersResponse,
  CommunityMember,
  ErasureResult,
  memberEndpoints,
  RosterMember,
  RosterPage,
} from './members.js';
import { defineEndpoint, Depth, ErrorEnvelope, MemberEnrichment, OpenApiDocument, Payer, type Endpoint } from './schemas.js';
import {
  SearchComplete,
  SearchFailed,
  SearchMatch,
  SearchPending,
  SearchPoll,
  SearchRequest,
  SearchRunning,
  SearchScope,
  searchEndpoints,
} from './search.js';

export const openapiEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/openapi.json',
  operationId: 'getOpenApiDocument',
  tag: 'Meta',
  summary: 'Get this OpenAPI document',
  description: 'Returns the OpenAPI 3.1 description of the v1 REST surface. Any valid credential may read it.',
  scope: null,
  success: { 200: { description: 'The OpenAPI document.', body: OpenApiDocument } },
  errors: {},
});

/**
 * The endpoint table, in the specification's order: the one declaration of each endpoint's scope,
 * request schemas, idempotency, rate-limit class and MCP tools. REST registers its routes from it
 * (gateway/rest/routes/v1/route.ts), the MCP tools take their checks from it (gateway/mcp/tool-call.ts)
 * and the OpenAPI document is built from it (gateway/rest/openapi).
 */
export const ENDPOINTS: readonly Endpoint[] = [
  getMeEndpoint,
  getOwnProfileEndpoint,
  startSelfEnrichmentEndpoint,
  getSelfEnrichmentRunEndpoint,
  ...searchEndpoints,
  ...memberEndpoints,
  startCommunityEnrichmentEndpoint,
  getCommunityEnrichmentRunEndpoint,
  // Discovery, added within v1 (not in the specification's table).
  ...discoveryEndpoints,
  // Events, added within v1 (docs/WEBHOOKS.md).
  ...eventEndpoints,
  ...webhookEndpointEndpoints,
  ...webhookDeliveryEndpoints,
  openapiEndpoint,
];

/** Which side of the wire a component describes: requests (input) or responses (output). */
export type ComponentSide = 'request' | 'response' | 'both';

export interface ComponentSpec {
  name: string;
  schema: z.ZodType;
  side: ComponentSide;
}

/**
 * Schemas published under components/schemas. Every request and response body must be one of
 * them; they are also referenced wherever they are nested in another.
 */
export const COMPONENTS: readonly ComponentSpec[] = [
  { name: 'Depth', schema: Depth, side: 'both' },
  { name: 'SearchScope', schema: SearchScope, side: 'request' },
  { name: 'SearchRequest', schema: SearchRequest, side: 'request' },
  { name: 'AddMemberItem', schema: AddMemberItem, side: 'request' },
  { name: 'AddMembersRequest', schema: AddMembersRequest, side: 'request' },
  { name: 'SelfEnrichmentRequest', schema: SelfEnrichmentRequest, side: 'request' },
  { name: 'EnrichmentRequest', schema: EnrichmentRequest, side: 'request' },
  { name: 'Error', schema: ErrorEnvelope, side: 'response' },
  { name: 'Payer', schema: Payer, side: 'response' },
  { name: 'Me', schema: MeResponse, side: 'response' },
  { name: 'MemberEnrichment', schema: MemberEnrichment, side: 'response' },
  { name: 'OwnProfile', schema: OwnProfile, side: 'response' },
  { name: 'SearchMatch', schema: SearchMatch, side: 'response' },
  { name: 'SearchComplete', schema: SearchComplete, side: 'response' },
  { name: 'SearchPending', schema: SearchPending, side: 'response' },
  { name: 'SearchRunning', schema: SearchRunning, side: 'response' },
  { name: 'SearchFailed', schema: SearchFailed, side: 'response' },
  { name: 'SearchPoll', schema: SearchPoll, side: 'response' },
  { name: 'RosterMember', schema: RosterMember, side: 'response' },
  { name: 'RosterPage', schema: RosterPage, side: 'response' },
  { name: 'CommunityMember', schema: CommunityMember, side: 'response' },
  { name: 'AddMemberResult', schema: AddMemberResult, side: 'response' },
  { name: 'AddMembersResponse', schema: AddMembersResponse, side: 'response' },
  { name: 'ErasureResult', schema: ErasureResult, side: 'response' },
  { name: 'EnrichmentRun', schema: EnrichmentRun, side: 'response' },
  { name: 'EnrichmentRunItem', schema: RunItem, side: 'response' },
  { name: 'CommunityRunStarted', schema: CommunityRunStarted, side: 'response' },
  { name: 'EnrichmentRunPoll', schema: EnrichmentRunPoll, side: 'response' },
  { name: 'DryRunEstimate', schema: DryRunEstimate, side: 'response' },
  { name: 'CommunitySummary', schema: CommunitySummary, side: 'response' },
  { name: 'CommunityPage', schema: CommunityPage, side: 'response' },
  { name: 'EnrichmentRunPage', schema: RunPage, side: 'response' },
  { name: 'EventType', schema: EventType, side: 'both' },
  { name: 'Event', schema: Event, side: 'response' },
  { name: 'EventPage', schema: EventPage, side: 'response' },
  { name: 'CreateWebhookEndpointRequest', schema: CreateWebhookEndpointRequest, side: 'request' },
  { name: 'UpdateWebhookEndpointRequest', schema: UpdateWebhookEndpointRequest, side: 'request' },
  { name: 'WebhookEndpoint', schema: WebhookEndpoint, side: 'response' },
  { name: 'WebhookEndpointWithSecret', schema: WebhookEndpointWithSecret, side: 'response' },
  { name: 'WebhookEndpointList', schema: WebhookEndpointList, side: 'response' },
  { name: 'DeletedWebhookEndpoint', schema: DeletedWebhookEndpoint, side: 'response' },
  { name: 'WebhookDeliveryAttempt', schema: WebhookDeliveryAttempt, side: 'response' },
  { name: 'WebhookDelivery', schema: WebhookDelivery, side: 'response' },
  { name: 'WebhookDeliveryWithAttempts', schema: WebhookDeliveryWithAttempts, side: 'response' },
  { name: 'WebhookDeliveryPage', schema: WebhookDeliveryPage, side: 'response' },
  { name: 'OpenApiDocument', schema: OpenApiDocument, side: 'response' },
];
