// Upgrading to communities migration 008 (the actor's name kept beside an attestation and a consent
// decision): rows written before keep their actor and get no name, so the communities screen names
// their fellow manager as before ("another manager of this community"); from then on a decision
// and an attestation keep the name they were given. On every store, from the version before.
import { describe, expect, it } from 'vitest';
import { withActorsInWords } from '../gateway/settings/actor-names.js';
import { toConsentRequest } from '../services/communities/communities-messages.js';
import { createCommunityRepository } from '../services/communities/community.repository.js';
import { createMemberWriteRepository, type ConsentRequestRow } from '../services/communities/member-write.repository.js';
import { readdirSync } from 'node:fs';
import { migrationsDir } from '../services/kit/db/migrations.js';
import { withDatabaseBefore } from './helpers/migrations-before.js';
import { storeNames } from './helpers/stores.js';

const UPGRADE = '008_actor_names.sql';
const VIEWER = { id: 'u_viewer', name: 'Vi Viewer', email: 'vi@example.org' };

describe.each(storeNames())('communities migration 008 on %s', (store) => {
  it('leaves older attestations and decisions unnamed (shown as before) and keeps the names of new ones', async () => {
    await withDatabaseBefore(store, 'communities', UPGRADE, async (db, upgradeNow) => {
      await db.query(`INSERT INTO communities.communities (id, name, owner_type, owner_id) VALUES ('c1', 'Lab', 'organization', 'o1')`);
      await db.query(`INSERT INTO communities.write_attestations (community_id, version, enabled, actor) VALUES ('c1', 1, true, 'user:u_old')`);
      await db.query(
        `INSERT INTO communities.consent_requests (id, community_id, operation, status, requested_by, resolved_at, resolved_by)
         VALUES ('cr_old', 'c1', 'members.add', 'denied', 'k1', now(), 'user:u_old'),
                ('cr_new', 'c1', 'members.remove', 'pending', 'k1', NULL, NULL)`,
      );

      // This migration first, then every later one of the folder.
      const later = readdirSync(migrationsDir('communities')).filter((name) => name.endsWith('.sql') && name > UPGRADE).sort();
      expect(await upgradeNow()).toEqual([UPGRADE, ...later]);
      expect(await db.query(`SELECT version, actor, actor_name FROM communities.write_attestations`)).toEqual([{ version: 1, actor: 'user:u_old', actor_name: '' }]);

      await createCommunityRepository(db).attestWrites('c1', false, 'user:u_new', 'Nia New');
      await createMemberWriteRepository(db).resolveConsentRequest('cr_new', 'approved', { id: 'user:u_new', name: 'Nia New' }, 2);
      const attestations = await db.query<{ version: number; enabled: boolean; actor: string; actor_name: string }>(
        `SELECT version, enabled, actor, actor_name FROM communities.write_attestations ORDER BY version DESC`,
      );
      const decisions = await db.query<ConsentRequestRow>(`SELECT * FROM communities.consent_requests ORDER BY id DESC`);
      const [shown] = withActorsInWords([{
        controlled: { community: undefined, attestations: attestations.map((a) => ({ version: a.version, enabled: a.enabled, actor: a.actor, actorName: a.actor_name, recordedAt: '' })) },
        resolved: decisions.map(toConsentRequest),
      }], VIEWER);
      expect(shown!.controlled.attestations.map((a) => a.actor)).toEqual(['Nia New', 'another manager of this community']);
      expect(shown!.resolved!.map((r) => [r.id, r.resolvedBy])).toEqual([['cr_old', 'another manager of this community'], ['cr_new', 'Nia New']]);
    });
  });
});
