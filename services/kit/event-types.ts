// The event types (docs/WEBHOOKS.md), and for each what its resource is and which scope reads that
// resource: an event is visible where its resource is readable, decided at read time. Shared by the
// edge (the `type` filter's schema) and the services that record and list events.
import type { Scope } from './scopes.js';

export const EVENT_TYPES = [
  'search.completed',
  'search.failed',
  'enrichment_run.succeeded',
  'enrichment_run.failed',
  'self_enrichment_run.succeeded',
  'self_enrichment_run.failed',
  'member.added',
  'member.erased',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Whose an event is: the key that started a search, the person of a self run, or a community. */
export type EventAudience = 'credential' | 'user' | 'community';

export const EVENT_RESOURCES = {
  search: { audience: 'credential', scope: 'search:read' },
  self_enrichment_run: { audience: 'user', scope: 'self:enrich' },
  enrichment_run: { audience: 'community', scope: 'enrich:read' },
  member: { audience: 'community', scope: 'profile:read' },
} as const satisfies Record<string, { audience: EventAudience; scope: Scope }>;
export type EventResource = keyof typeof EVENT_RESOURCES;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The resource an event type is about: the part before the dot. */
export function resourceOf(type: EventType): EventResource {
  return type.slice(0, type.indexOf('.')) as EventResource;
}
