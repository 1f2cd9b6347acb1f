// Events (docs/WEBHOOKS.md): GET /v1/events and GET /v1/events/{id}. An event carries its resource
// as the API's own read of it answers: a search's poll, a run's poll, a member read or an erasure's
// result. Visible where that resource is readable, decided at read time.
import { z } from 'zod';
import { EVENT_TYPES } from '../../../services/kit/event-types.js';
import { listQuery } from './discovery.js';
import { EnrichmentRunPoll } from './enrichment.js';
import { CommunityMember, ErasureResult } from './members.js';
import { defineEndpoint, Id, Timestamp, Cursor } from './schemas.js';
import { SearchPoll } from './search.js';

export const EVENTS_LIMIT_DEFAULT = 20;
export const EVENTS_LIMIT_MAX = 100;

export const EventType = z
  .enum(EVENT_TYPES)
  .describe(
    'What changed: `search.completed` / `search.failed` (data: the search’s poll), `enrichment_run.succeeded` / `enrichment_run.failed` and `self_enrichment_run.succeeded` / `self_enrichment_run.failed` (the run’s poll), `member.added` (the member read) and `member.erased` (the erasure’s result).',
  );

export const EventsQuery = listQuery(EVENTS_LIMIT_DEFAULT, EVENTS_LIMIT_MAX, 'another `type`').extend({
  type: EventType.optional().describe('Only events of this type; omit it for every type.'),
});

export const EventParams = z.object({ event_id: Id.describe('Event id (`evt_…`).') });

export const Event = z
  .object({
    id: Id.describe('Event id (`evt_…`), the same wherever the event is seen.'),
    type: EventType,
    created_at: Timestamp.describe('When the change happened.'),
    data: z
      .union([SearchPoll, EnrichmentRunPoll, CommunityMember, ErasureResult])
      .describe('The resource as the API’s own read of it answers, by `type`: a search’s poll, a run’s poll, a member read, or an erasure’s result.'),
  })
  .describe('A state change of a search, an enrichment run or a roster, recorded once.');

export const EventPage = z
  .object({
    events: z.array(Event).describe('Events of this page, newest first.'),
    next_cursor: Cursor.nullable().describe('Pass as `after` for the next page. Null only when the list is exhausted.'),
  })
  .describe('One page of the events the credential may see, newest first.');

const VISIBILITY =
  'An event is visible where its resource is readable now: a search’s events to the key that started it (with `search:read`), a self-enrichment run’s to its person (`self:enrich`), a community run’s (`enrich:read`) and roster events (`profile:read`) to credentials whose read reach holds the community.';

export const listEventsEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/events',
  operationId: 'listEvents',
  tag: 'Events',
  summary: 'List events',
  description: `Returns one page of the events this credential may see, newest first, optionally of one \`type\`. ${VISIBILITY} Follow \`next_cursor\` until it is null.`,
  scope: 'webhooks:read',
  query: EventsQuery,
  success: { 200: { description: 'A page of events (empty when there are none).', body: EventPage } },
  errors: {
    400: { description: '`limit` below 1 or not a whole number, `type` not an event type, or `after` not a cursor of this list.', codes: ['invalid_request'] },
    403: { description: 'The credential lacks `webhooks:read`.' },
  },
});

export const getEventEndpoint = defineEndpoint({
  method: 'GET',
  path: '/v1/events/{event_id}',
  operationId: 'getEvent',
  tag: 'Events',
  summary: 'Get an event',
  description: `Returns one event. ${VISIBILITY} Any other event is not found.`,
  scope: 'webhooks:read',
  params: EventParams,
  success: { 200: { description: 'The event.', body: Event } },
  errors: {
    403: { description: 'The credential lacks `webhooks:read`.' },
    404: { description: 'No such event, or one this credential may not see.' },
  },
});

export const eventEndpoints = [listEventsEndpoint, getEventEndpoint];
