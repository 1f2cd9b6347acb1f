// Upgrading to migration 010 (search_tsv, name_tsv and doc_length derived by a trigger instead of
// generated columns) keeps every existing document's values and statistics, and from then on the
// trigger keeps them: a stored vector leaves them, a text change derives them again and clears the
// vector. On every store, from a database migrated to the version before.
import { describe, expect, it } from 'vitest';
import { withDatabaseBefore } from '../../test/helpers/migrations-before.js';
import { storeNames } from '../../test/helpers/stores.js';

const UPGRADE = '010_text_derived_columns.sql';

describe.each(storeNames())('search migration 010 on %s', (store) => {
  it('keeps existing documents’ derived values and statistics, then derives them on text changes only', async () => {
    await withDatabaseBefore(store, 'search', UPGRADE, async (db, upgradeNow) => {
      await db.query(
        `INSERT INTO search.documents (community_id, profile_id, name, headline, bio, organization, location, enrichment_text, embedding, embedding_model)
         VALUES ('c1', 'p1', 'Ada Glacier', 'Glaciologist', 'Ice sheets and firn.', 'Polar Institute', 'Tromsø', NULL, '{0.1,0.2}', 'm'),
                ('', 'p2', 'Bo Lake', 'Limnology', NULL, NULL, NULL, 'lakes', '{0.3}', 'm')`,
      );
      const derived = `SELECT profile_id, search_tsv::text AS tsv, name_tsv::text AS names, doc_length FROM search.documents ORDER BY profile_id`;
      const stats = `SELECT community_id, term, df::int AS df FROM search.term_stats ORDER BY community_id, term`;
      const before = { derived: await db.query(derived), stats: await db.query(stats) };

      expect((await upgradeNow())[0]).toBe(UPGRADE);
      expect({ derived: await db.query(derived), stats: await db.query(stats) }).toEqual(before);

      // A stored vector leaves what is derived; a text change derives it again and clears the vector.
      await db.query(`UPDATE search.documents SET embedding = '{0.5}', embedding_model = 'm2' WHERE profile_id = 'p1'`);
      await db.query(`UPDATE search.documents SET bio = 'Sea ice.' WHERE profile_id = 'p2'`);
      const after = await db.query<{ profile_id: string; tsv: string; doc_length: number; embedding_model: string | null }>(
        `SELECT profile_id, search_tsv::text AS tsv, doc_length, embedding_model FROM search.documents ORDER BY profile_id`,
      );
      expect(after[0]).toEqual({ profile_id: 'p1', tsv: before.derived[0]!.tsv, doc_length: before.derived[0]!.doc_length, embedding_model: 'm2' });
      expect(after[1]).toMatchObject({ profile_id: 'p2', embedding_model: null });
      expect(after[1]!.tsv).toContain("'sea':");
      expect(await db.query(`SELECT 1 FROM search.term_stats WHERE community_id = '' AND term = 'sea' AND df = 1`)).toHaveLength(1);
    });
  });
});
