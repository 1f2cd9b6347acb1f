-- BM25 term statistics (docs/SEARCH-RANKING.md "BM25"). The full-text leg scores documents with
-- BM25: inverse document frequencies and the average document length of the corpora searched. They
-- are kept here, per corpus (community_id; '' is the public corpus), exact at every commit:
--   corpus_stats: documents and their total length (lexeme occurrences of search_tsv);
--   term_stats:   per lexeme, how many documents hold it (df).
-- A search over several corpora sums their rows. Statement-level triggers with transition tables
-- keep both as documents are inserted, updated (only when search_tsv changed) and deleted, in one
-- grouped upsert per statement: a bulk write costs one pass, not one per row.
-- Locks: every statement takes corpus rows, then term rows, each in key order, so two writers
-- never wait on each other in opposite orders within a statement.

-- A tsvector's length: its lexeme occurrences (positions; a lexeme without positions counts once).
CREATE FUNCTION search.tsv_length(tsv tsvector) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)::integer FROM unnest(tsv) AS u $$;

-- How often a lexeme occurs in a tsvector, read with ts_rank instead of unnesting the tsvector
-- (≈ 0.6 µs a row against ≈ 17 µs): for a one-lexeme query with every weight 1, ts_rank is
-- (1/1² + 1/2² + … + 1/n²) / (π²/6) for n occurrences (PostgreSQL's calc_rank_or), and
-- 1 / ((π²/6)(1 − r)) − 1/2 recovers n (exact to the integer up to the 256 positions a lexeme
-- keeps; tested against a recount). No occurrence: ts_rank is 1e-20, and this 0.
CREATE FUNCTION search.term_frequency(tsv tsvector, term tsquery) RETURNS double precision
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT round(1 / (1.64493406685 * (1 - least(ts_rank('{1,1,1,1}'::real[], tsv, term, 0), 0.99999)::double precision)) - 0.5) $$;

-- The length of search_tsv, stored (a generated column cannot read another one, so it repeats
-- search_tsv's expression from migration 003).
ALTER TABLE search.documents
  ADD COLUMN doc_length integer GENERATED ALWAYS AS (search.tsv_length(
    setweight(to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || coalesce(headline, '')), 'A') ||
    setweight(to_tsvector('english'::regconfig, coalesce(organization, '') || ' ' || coalesce(location, '')), 'B') ||
    setweight(to_tsvector('english'::regconfig, coalesce(bio, '') || ' ' || coalesce(enrichment_text, '')), 'C')
  )) STORED;

CREATE TABLE search.corpus_stats (
  community_id text PRIMARY KEY,
  docs         bigint NOT NULL,
  total_length bigint NOT NULL
);

CREATE TABLE search.term_stats (
  community_id text NOT NULL,
  term         text NOT NULL,
  df           bigint NOT NULL,
  PRIMARY KEY (community_id, term)
);

INSERT INTO search.corpus_stats (community_id, docs, total_length)
  SELECT community_id, count(*), sum(doc_length) FROM search.documents GROUP BY community_id;
INSERT INTO search.term_stats (community_id, term, df)
  SELECT d.community_id, t.term, count(*) FROM search.documents d, unnest(tsvector_to_array(d.search_tsv)) AS t(term)
   GROUP BY d.community_id, t.term;

-- One function for the three events: the rows that count (+1 inserted or new text, −1 deleted or
-- old text; an update that leaves search_tsv as it was counts for nothing) come from the
-- statement's transition tables, read by dynamic SQL (the tables an event has differ).
CREATE FUNCTION search.track_term_stats() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text;
  gone_corpora text[];
  gone_corpus_terms text[];
  gone_terms text[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    source := 'SELECT community_id, search_tsv, doc_length, 1 AS sign FROM new_rows';
  ELSIF TG_OP = 'DELETE' THEN
    source := 'SELECT community_id, search_tsv, doc_length, -1 AS sign FROM old_rows';
  ELSE
    source := 'SELECT n.community_id, n.search_tsv, n.doc_length, 1 AS sign
                 FROM new_rows n LEFT JOIN old_rows o ON o.community_id = n.community_id AND o.profile_id = n.profile_id
                WHERE o.search_tsv IS DISTINCT FROM n.search_tsv
               UNION ALL
               SELECT o.community_id, o.search_tsv, o.doc_length, -1 AS sign
                 FROM old_rows o LEFT JOIN new_rows n ON o.community_id = n.community_id AND o.profile_id = n.profile_id
                WHERE o.search_tsv IS DISTINCT FROM n.search_tsv';
  END IF;

  EXECUTE format($sql$
    WITH src AS (%s),
    delta AS (SELECT community_id, sum(sign)::bigint AS docs, sum(sign * doc_length)::bigint AS len FROM src GROUP BY community_id),
    up AS (
      INSERT INTO search.corpus_stats AS s (community_id, docs, total_length)
      SELECT community_id, docs, len FROM delta WHERE docs <> 0 OR len <> 0 ORDER BY community_id
      ON CONFLICT (community_id) DO UPDATE SET docs = s.docs + EXCLUDED.docs, total_length = s.total_length + EXCLUDED.total_length
      RETURNING s.community_id, s.docs)
    SELECT array_agg(community_id) FROM up WHERE docs <= 0 $sql$, source) INTO gone_corpora;

  EXECUTE format($sql$
    WITH src AS (%s),
    delta AS (SELECT src.community_id, t.term, sum(src.sign)::bigint AS df
                FROM src, unnest(tsvector_to_array(src.search_tsv)) AS t(term) GROUP BY src.community_id, t.term),
    up AS (
      INSERT INTO search.term_stats AS s (community_id, term, df)
      SELECT community_id, term, df FROM delta WHERE df <> 0 ORDER BY community_id, term
      ON CONFLICT (community_id, term) DO UPDATE SET df = s.df + EXCLUDED.df
      RETURNING s.community_id, s.term, s.df)
    SELECT array_agg(community_id), array_agg(term) FROM up WHERE df <= 0 $sql$, source) INTO gone_corpus_terms, gone_terms;

  -- Rows that reached zero are deleted (a recount has no row for them), still under this
  -- statement's row locks.
  IF gone_corpora IS NOT NULL THEN
    DELETE FROM search.corpus_stats WHERE community_id = ANY(gone_corpora) AND docs <= 0;
  END IF;
  IF gone_terms IS NOT NULL THEN
    DELETE FROM search.term_stats s USING unnest(gone_corpus_terms, gone_terms) AS g(community_id, term)
     WHERE s.community_id = g.community_id AND s.term = g.term AND s.df <= 0;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER documents_term_stats_insert AFTER INSERT ON search.documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search.track_term_stats();
CREATE TRIGGER documents_term_stats_update AFTER UPDATE ON search.documents
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search.track_term_stats();
CREATE TRIGGER documents_term_stats_delete AFTER DELETE ON search.documents
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search.track_term_stats();

CREATE FUNCTION search.clear_term_stats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search.corpus_stats;
  DELETE FROM search.term_stats;
  RETURN NULL;
END $$;

CREATE TRIGGER documents_term_stats_truncate AFTER TRUNCATE ON search.documents
  FOR EACH STATEMENT EXECUTE FUNCTION search.clear_term_stats();
