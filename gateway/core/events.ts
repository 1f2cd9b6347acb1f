// Events for the REST surface (docs/WEBHOOKS.md): the communities service's event log, asked as
// the caller (it re-checks webhooks:read and decides, live, which events the caller may see). Each
// event's data is mapped by the same function as its resource's own read, so the two cannot differ.
import type { z } from 'zod';
import type { Event } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { ApiError, fromRemote } from './api-error.js';
import type { Event as EventSchema, EventPage } from './contract/events.js';
import type { ListQuery } from './discovery.js';
import type { CallerContext, Edge } from './edge.js';
import { runPollView } from './enrichment.js';
import { memberView } from './members-read.js';
import { erasureView } from './members-write.js';
import { searchPollView } from './search.js';

export type EventView = z.output<typeof EventSchema>;
export type EventPageView = z.output<typeof EventPage>;

function dataView(e: Event): EventView['data'] {
  if (e.search) return searchPollView(e.search);
  if (e.run) return runPollView(e.run);
  if (e.member) return memberView(e.member, undefined);
  if (e.erasure) return erasureView(e.erasure);
  throw new ApiError(500, 'internal', 'internal error');
}

export function eventView(e: Event): EventView {
  return { id: e.id, type: e.type as EventView['type'], created_at: e.createdAt!, data: dataView(e) };
}

export async function listEvents(edge: Edge, ctx: CallerContext, query: ListQuery & { type?: string | undefined }): Promise<EventPageView> {
  try {
    const page = await edge.clients.communities.listEvents({ pageSize: query.limit, pageToken: query.after ?? '', type: query.type ?? '' }, await edge.as(ctx));
    return { events: page.events.map(eventView), next_cursor: page.nextPageToken || null };
  } catch (error) {
    throw fromRemote(error);
  }
}

export async function getEvent(edge: Edge, ctx: CallerContext, eventId: string): Promise<EventView> {
  try {
    const { event } = await edge.clients.communities.getEvent({ eventId }, await edge.as(ctx));
    if (!event) throw new ApiError(500, 'internal', 'internal error');
    return eventView(event);
  } catch (error) {
    throw fromRemote(error);
  }
}
