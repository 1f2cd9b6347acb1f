// The event log (docs/WEBHOOKS.md), owned by communities: the roster's own events are recorded in
// the change's transaction (recordEvent), search's and enrichment's arrive from their outboxes
// (recordEvents, idempotent on the event id). Reads need webhooks:read, and each event is visible
// where its resource is readable, decided now: a search's to the key that started it (search:read),
// a self run's to its person (self:enrich), a community run's (enrich:read) and a roster event
// (profile:read) to credentials whose live read reach holds the community.
import { OwnerType, type Caller } from '../../proto/gen/expertnet/common/v1/common.js';
import {
  Event,
  type GetEventRequest,
  type GetEventResponse,
  type ListEventsRequest,
  type ListEventsResponse,
  type RecordedEvent,
} from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import type { Queryable } from '../kit/db/database.js';
import { EVENT_RESOURCES, isEventType, resourceOf, type EventType } from '../kit/event-types.js';
import { domainError } from '../kit/grpc/errors.js';
import { requireCaller } from '../kit/grpc/require-caller.js';
import type { ServiceContext } from '../kit/grpc/server.js';
import { newId } from '../kit/ids.js';
import { decodeListCursor, encodeListCursor } from '../kit/list-cursor.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { CommunitiesContext } from './communities-context.js';
import { createEventLogRepository, type EventAudiences, type EventRow, type NewEventRow } from './event-log.repository.js';
import { computeReach } from './reach.js';
import { createWebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

export const EVENTS_PAGE_DEFAULT = 20;
export const EVENTS_PAGE_MAX = 100;

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const OWNER_TYPES = new Map([[OwnerType.OWNER_TYPE_USER, 'user'], [OwnerType.OWNER_TYPE_ORGANIZATION, 'organization']]);

/** What the caller may see of each kind of resource, from its scopes and its live read reach. */
export async function audiencesOf(context: CommunitiesContext, caller: Caller, requestId: string): Promise<EventAudiences> {
  const has = (resource: keyof typeof EVENT_RESOURCES) => caller.scopes.includes(EVENT_RESOURCES[resource].scope);
  const reach = has('enrichment_run') || has('member') ? [...(await computeReach(context.reachDeps, caller, requestId)).read] : [];
  return {
    credentialId: has('search') ? caller.credentialId : null,
    userId: has('self_enrichment_run') && caller.userId ? caller.userId : null,
    runCommunities: has('enrichment_run') ? reach : null,
    rosterCommunities: has('member') ? reach : null,
  };
}

function toEvent(row: EventRow): Event {
  return Event.fromJSON(row.payload);
}

function requireType(type: string): EventType | undefined {
  if (!type) return undefined;
  if (!isEventType(type)) throw domainError('invalid_request', 'type: not an event type');
  return type;
}

export async function listEvents(context: CommunitiesContext, request: ListEventsRequest, ctx: ServiceContext): Promise<ListEventsResponse> {
  const caller = requireCaller(ctx, 'webhooks:read');
  const type = requireType(request.type.trim());
  // The cursor is bound to its list: every event, or one type's.
  const list = `events:${type ?? '*'}`;
  const after = request.pageToken ? decodeListCursor(list, request.pageToken, true) : undefined;
  const limit = clampPageSize(request.pageSize, EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX);
  const audiences = await audiencesOf(context, caller, ctx.requestId);
  const rows = await createEventLogRepository(context.deps.db).page(audiences, type, after && { at: after.at!, id: after.id }, limit + 1);
  const page = pageOf(rows, limit, (last) => encodeListCursor(list, { id: last.id, at: last.created_key }));
  return { events: page.items.map(toEvent), nextPageToken: page.nextPageToken };
}

export async function getEvent(context: CommunitiesContext, request: GetEventRequest, ctx: ServiceContext): Promise<GetEventResponse> {
  const caller = requireCaller(ctx, 'webhooks:read');
  const id = request.eventId.trim();
  const row = ID.test(id) ? await createEventLogRepository(context.deps.db).find(await audiencesOf(context, caller, ctx.requestId), id) : undefined;
  // Another credential's event, or one whose resource the caller cannot read now, is not found.
  if (!row) throw domainError('not_found', `event ${request.eventId} not found`);
  return { event: toEvent(row) };
}

function newEventRow(recorded: RecordedEvent): NewEventRow {
  const event = recorded.event;
  if (!event || !ID.test(event.id) || !isEventType(event.type) || !event.createdAt) throw domainError('invalid_request', 'events: each needs an id, a type and created_at');
  const audience = EVENT_RESOURCES[resourceOf(event.type)].audience;
  const owner = { credential: recorded.credentialId, user: recorded.userId, community: recorded.communityId }[audience];
  if (!owner) throw domainError('invalid_request', `events: a ${event.type} event names its ${audience}`);
  const credentialOwner = recorded.credentialOwner;
  const ownerType = OWNER_TYPES.get(credentialOwner?.type ?? OwnerType.OWNER_TYPE_UNSPECIFIED) ?? null;
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    credentialId: recorded.credentialId || null,
    userId: recorded.userId || null,
    communityId: recorded.communityId || null,
    ownerType,
    ownerId: ownerType && credentialOwner?.id ? credentialOwner.id : null,
    payload: Event.toJSON(event),
  };
}

/**
 * Records the events new to the log in transaction `tx`, and in the same transaction their
 * deliveries to the webhook endpoints that may receive them (so neither is ever without the other).
 */
async function insertEvents(tx: Queryable, rows: NewEventRow[]): Promise<number> {
  const recorded = await createEventLogRepository(tx).insert(rows);
  const deliveries = createWebhookDeliveriesRepository(tx);
  for (const row of recorded) await deliveries.fanOut(row);
  return recorded.length;
}

/** Records relayed events; an event recorded before (the same id) is not recorded again. */
export async function recordEvents(context: CommunitiesContext, events: RecordedEvent[]): Promise<number> {
  const rows = events.map(newEventRow);
  return context.deps.db.transaction((tx) => insertEvents(tx, rows));
}

/** Records one of the roster's own events inside the change's transaction `tx`. */
export async function recordEvent(tx: Queryable, communityId: string, type: EventType, data: Pick<Event, 'member' | 'erasure'>): Promise<void> {
  const event = Event.fromPartial({ id: newId('evt'), type, createdAt: new Date().toISOString(), ...data });
  await insertEvents(tx, [newEventRow({ event, credentialId: '', userId: '', communityId })]);
}

/** The event log's handlers of the communities service. */
export function eventHandlers(context: CommunitiesContext) {
  return {
    listEvents: (request: ListEventsRequest, ctx: ServiceContext) => listEvents(context, request, ctx),
    getEvent: (request: GetEventRequest, ctx: ServiceContext) => getEvent(context, request, ctx),
    recordEvents: async (request: { events: RecordedEvent[] }) => ({ recorded: await recordEvents(context, request.events) }),
  };
}

/** Who may call them: end users (the edge, or directly) read; services relay their outboxes. */
export const EVENT_ACCESS = {
  listEvents: ['caller', 'direct'],
  getEvent: ['caller', 'direct'],
  recordEvents: ['service'],
} as const;
