// SQL for webhook endpoints (communities.webhook_endpoints; docs/WEBHOOKS.md). Every read and write
// is fenced to the owner: another owner's endpoint is not found. A status set by its owner sets the
// reason too: disabled `manual` (an endpoint disabled already keeps its reason), enabled none.
import type { Queryable } from '../kit/db/database.js';

export interface EndpointOwner {
  type: 'user' | 'organization';
  id: string;
}

export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'gone' | 'failing' | null;
  secret: string;
  previous_secret: string | null;
  previous_until: Date | null;
  created_at: Date;
}

export interface EndpointChanges {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | undefined;
  status?: string | undefined;
}

const OWNED = 'owner_type = $1 AND owner_id = $2';

export function createWebhookEndpointsRepository(db: Queryable) {
  return {
    async insert(owner: EndpointOwner, row: Pick<EndpointRow, 'id' | 'url' | 'events' | 'description' | 'secret'>): Promise<EndpointRow> {
      const rows = await db.query<EndpointRow>(
        `INSERT INTO communities.webhook_endpoints (id, owner_type, owner_id, url, events, description, secret)
         VALUES ($3, $1, $2, $4, $5::text[], $6, $7) RETURNING *`,
        [owner.type, owner.id, row.id, row.url, row.events, row.description, row.secret],
      );
      return rows[0]!;
    },

    async list(owner: EndpointOwner): Promise<EndpointRow[]> {
      return db.query<EndpointRow>(`SELECT * FROM communities.webhook_endpoints WHERE ${OWNED} ORDER BY created_at DESC, id DESC`, [owner.type, owner.id]);
    },

    async find(owner: EndpointOwner, id: string): Promise<EndpointRow | undefined> {
      return (await db.query<EndpointRow>(`SELECT * FROM communities.webhook_endpoints WHERE ${OWNED} AND id = $3`, [owner.type, owner.id, id]))[0];
    },

    /** Applies the changes given (an absent one is kept); undefined when the owner has no such endpoint. */
    async update(owner: EndpointOwner, id: string, c: EndpointChanges): Promise<EndpointRow | undefined> {
      const rows = await db.query<EndpointRow>(
        `UPDATE communities.webhook_endpoints
            SET url = coalesce($4, url), events = coalesce($5::text[], events), description = coalesce($6, description), status = coalesce($7, status),
                disabled_reason = CASE $7::text WHEN 'enabled' THEN NULL WHEN 'disabled' THEN coalesce(disabled_reason, 'manual') ELSE disabled_reason END
          WHERE ${OWNED} AND id = $3 RETURNING *`,
        [owner.type, owner.id, id, c.url ?? null, c.events ?? null, c.description ?? null, c.status ?? null],
      );
      return rows[0];
    },

    async remove(owner: EndpointOwner, id: string): Promise<boolean> {
      return (await db.query(`DELETE FROM communities.webhook_endpoints WHERE ${OWNED} AND id = $3 RETURNING id`, [owner.type, owner.id, id])).length === 1;
    },

    /** A new secret; the current one signs beside it until `overlapHours` from now. */
    async rotate(owner: EndpointOwner, id: string, secret: string, overlapHours: number): Promise<EndpointRow | undefined> {
      const rows = await db.query<EndpointRow>(
        `UPDATE communities.webhook_endpoints
            SET previous_secret = secret, previous_until = now() + ($4::int * interval '1 hour'), secret = $5
          WHERE ${OWNED} AND id = $3 RETURNING *`,
        [owner.type, owner.id, id, overlapHours, secret],
      );
      return rows[0];
    },
  };
}
