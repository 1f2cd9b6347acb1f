-- The BM25 statistics triggers of migration 007, one function per event with static SQL, and no
-- work for a statement that changed no row (docs/SEARCH-RANKING.md "BM25"). Measured per indexing
-- call of 100 new documents on PostgreSQL 15 (docs/SEARCH-RANKING.md "Database"):
--   - an upsert (INSERT … ON CONFLICT DO UPDATE) fires the update trigger even when every row is
--     new, and the shared function then planned and ran its two statements over empty transition
--     tables: about 1 ms a call for nothing;
--   - its statements were dynamic (EXECUTE format(…): the tables an event has differ), so planned
--     on every call; static ones are planned once per connection.
-- What they count is unchanged: +1 for each inserted row and each changed row's new text, −1 for
-- each deleted row and each changed row's old text (an update that leaves search_tsv as it was
-- counts for nothing), corpus rows then term rows, each in key order; rows that reach 0 are deleted.

-- Deletes the statistics rows a statement brought to 0 (a recount has no row for them), still
-- under that statement's row locks.
CREATE FUNCTION search.delete_spent_stats(corpora text[], corpus_terms text[], terms text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF corpora IS NOT NULL THEN
    DELETE FROM search.corpus_stats WHERE community_id = ANY(corpora) AND docs <= 0;
  END IF;
  IF terms IS NOT NULL THEN
    DELETE FROM search.term_stats s USING unnest(corpus_terms, terms) AS g(community_id, term)
     WHERE s.community_id = g.community_id AND s.term = g.term AND s.df <= 0;
  END IF;
END $$;

CREATE FUNCTION search.term_stats_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An insert only adds: no row reaches 0.
  INSERT INTO search.corpus_stats AS s (community_id, docs, total_length)
  SELECT community_id, count(*), sum(doc_length) FROM new_rows GROUP BY community_id ORDER BY community_id
  ON CONFLICT (community_id) DO UPDATE SET docs = s.docs + EXCLUDED.docs, total_length = s.total_length + EXCLUDED.total_length;
  INSERT INTO search.term_stats AS s (community_id, term, df)
  SELECT n.community_id, t.term, count(*) FROM new_rows n, unnest(tsvector_to_array(n.search_tsv)) AS t(term)
   GROUP BY n.community_id, t.term ORDER BY n.community_id, t.term
  ON CONFLICT (community_id, term) DO UPDATE SET df = s.df + EXCLUDED.df;
  RETURN NULL;
END $$;

CREATE FUNCTION search.term_stats_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone_corpora text[];
  gone_corpus_terms text[];
  gone_terms text[];
BEGIN
  WITH up AS (
    INSERT INTO search.corpus_stats AS s (community_id, docs, total_length)
    SELECT community_id, -count(*), -sum(doc_length) FROM old_rows GROUP BY community_id ORDER BY community_id
    ON CONFLICT (community_id) DO UPDATE SET docs = s.docs + EXCLUDED.docs, total_length = s.total_length + EXCLUDED.total_length
    RETURNING s.community_id, s.docs)
  SELECT array_agg(community_id) INTO gone_corpora FROM up WHERE docs <= 0;
  WITH up AS (
    INSERT INTO search.term_stats AS s (community_id, term, df)
    SELECT o.community_id, t.term, -count(*) FROM old_rows o, unnest(tsvector_to_array(o.search_tsv)) AS t(term)
     GROUP BY o.community_id, t.term ORDER BY o.community_id, t.term
    ON CONFLICT (community_id, term) DO UPDATE SET df = s.df + EXCLUDED.df
    RETURNING s.community_id, s.term, s.df)
  SELECT array_agg(community_id), array_agg(term) INTO gone_corpus_terms, gone_terms FROM up WHERE df <= 0;
  PERFORM search.delete_spent_stats(gone_corpora, gone_corpus_terms, gone_terms);
  RETURN NULL;
END $$;

CREATE FUNCTION search.term_stats_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gone_corpora text[];
  gone_corpus_terms text[];
  gone_terms text[];
BEGIN
  -- An upsert of new documents fires this with no row at all; most other updates leave
  -- search_tsv as it was (a stored vector, a re-index stamp). An old row left without a new one
  -- of its key (a key changed) always leaves a new row without an old one, so this one test finds
  -- every statement with something to count.
  IF NOT EXISTS (SELECT 1 FROM new_rows n LEFT JOIN old_rows o ON o.community_id = n.community_id AND o.profile_id = n.profile_id
                  WHERE o.search_tsv IS DISTINCT FROM n.search_tsv) THEN
    RETURN NULL;
  END IF;
  WITH src AS (
    SELECT n.community_id, n.search_tsv, n.doc_length, 1 AS sign
      FROM new_rows n LEFT JOIN old_rows o ON o.community_id = n.community_id AND o.profile_id = n.profile_id
     WHERE o.search_tsv IS DISTINCT FROM n.search_tsv
    UNION ALL
    SELECT o.community_id, o.search_tsv, o.doc_length, -1 AS sign
      FROM old_rows o LEFT JOIN new_rows n ON o.community_id = n.community_id AND o.profile_id = n.profile_id
     WHERE o.search_tsv IS DISTINCT FROM n.search_tsv),
  delta AS (SELECT community_id, sum(sign)::bigint AS docs, sum(sign * doc_length)::bigint AS len FROM src GROUP BY community_id),
  up AS (
    INSERT INTO search.corpus_stats AS s (community_id, docs, total_length)
    SELECT community_id, docs, len FROM delta WHERE docs <> 0 OR len <> 0 ORDER BY community_id
    ON CONFLICT (community_id) DO UPDATE SET docs = s.docs + EXCLUDED.docs, total_length = s.total_length + EXCLUDED.total_length
    RETURNING s.community_id, s.docs)
  SELECT array_agg(community_id) INTO gone_corpora FROM up WHERE docs <= 0;
  WITH src AS (
    SELECT n.community_id, n.search_tsv, 1 AS sign
      FROM new_rows n LEFT JOIN old_rows o ON o.community_id = n.community_id AND o.profile_id = n.profile_id
     WHERE o.search_tsv IS DISTINCT FROM n.search_tsv
    UNION ALL
    SELECT o.community_id, o.search_tsv, -1 AS sign
      FROM old_rows o LEFT JOIN new_rows n ON o.community_id = n.community_id AND o.profile_id = n.profile_id
     WHERE o.search_tsv IS DISTINCT FROM n.search_tsv),
  delta AS (SELECT src.community_id, t.term, sum(src.sign)::bigint AS df
              FROM src, unnest(tsvector_to_array(src.search_tsv)) AS t(term) GROUP BY src.community_id, t.term),
  up AS (
    INSERT INTO search.term_stats AS s (community_id, term, df)
    SELECT community_id, term, df FROM delta WHERE df <> 0 ORDER BY community_id, term
    ON CONFLICT (community_id, term) DO UPDATE SET df = s.df + EXCLUDED.df
    RETURNING s.community_id, s.term, s.df)
  SELECT array_agg(community_id), array_agg(term) INTO gone_corpus_terms, gone_terms FROM up WHERE df <= 0;
  PERFORM search.delete_spent_stats(gone_corpora, gone_corpus_terms, gone_terms);
  RETURN NULL;
END $$;

DROP TRIGGER documents_term_stats_insert ON search.documents;
DROP TRIGGER documents_term_stats_update ON search.documents;
DROP TRIGGER documents_term_stats_delete ON search.documents;
DROP FUNCTION search.track_term_stats();

CREATE TRIGGER documents_term_stats_insert AFTER INSERT ON search.documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search.term_stats_inserted();
CREATE TRIGGER documents_term_stats_update AFTER UPDATE ON search.documents
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search.term_stats_updated();
CREATE TRIGGER documents_term_stats_delete AFTER DELETE ON search.documents
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search.term_stats_deleted();
