-- The search corpus on two PostgreSQL servers (docs/SEARCH.md, "Past one PostgreSQL"):
-- search.documents becomes a table partitioned by hash of profile_id, one half kept here (the
-- coordinator, where the search service connects) and one half on a shard, reached through
-- postgres_fdw. The search service reads and writes search.documents as before; the BM25
-- statistics (search.corpus_stats, search.term_stats) stay here and stay global.
--
-- Before: the shard is a database whose search schema was migrated as the service migrates its own
-- (npm run migrate with DATABASE_URL naming the shard), and holds no documents. Then, as a
-- superuser of the coordinator's database, once, in one transaction (the corpus is read-only
-- while it runs):
--   psql "postgres://ADMIN@COORDINATOR/expertnet" -v ON_ERROR_STOP=1 \
--     -v shard_host=10.0.0.12 -v shard_port=5432 -v shard_dbname=expertnet \
--     -v shard_user=expertnet_app -v shard_password=… -f deploy/postgres/search-partitions.sql
-- Tested by test/postgres/search-partitioned.test.ts (a second server started by the test).
BEGIN;

CREATE EXTENSION IF NOT EXISTS postgres_fdw;
-- async_capable: the coordinator scans the shard while it scans its own half; fetch_size: a
-- retrieval tier reads up to thousands of rows, not 100 a round trip.
CREATE SERVER search_shard_1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'shard_host', port :'shard_port', dbname :'shard_dbname', async_capable 'true', fetch_size '2000');
-- Every role that reads search.documents (the application's and the migrations') uses the mapping.
CREATE USER MAPPING FOR PUBLIC SERVER search_shard_1 OPTIONS (user :'shard_user', password :'shard_password');

-- The table as the migrations left it, its rows, statistics and indexes included, is replaced by a
-- partitioned one of the same columns (LIKE keeps their order, defaults and storage).
ALTER TABLE search.documents RENAME TO documents_unpartitioned;
CREATE TABLE search.documents (LIKE search.documents_unpartitioned INCLUDING DEFAULTS INCLUDING STORAGE)
  PARTITION BY HASH (profile_id);
-- A partitioned table with a foreign partition has no unique index of its own: each half keeps
-- the primary key (the shard's from its migrations). Both contain profile_id, the partition key,
-- so a document's key is unique across the halves.
CREATE TABLE search.documents_p0 PARTITION OF search.documents (PRIMARY KEY (community_id, profile_id))
  FOR VALUES WITH (MODULUS 2, REMAINDER 0) WITH (fillfactor = 75);
CREATE FOREIGN TABLE search.documents_p1 PARTITION OF search.documents
  FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER search_shard_1 OPTIONS (schema_name 'search', table_name 'documents');

-- The rows move as they are, derived columns included; no statistics trigger is on the new table
-- yet, and the statistics already count exactly these rows.
INSERT INTO search.documents SELECT * FROM search.documents_unpartitioned;

-- The indexes the migrations made (all but the primary key), made again on the parent under their
-- own names: PostgreSQL builds them on the local half and skips the foreign one (the shard's own
-- migrations made its indexes).
CREATE TEMP TABLE search_document_indexes ON COMMIT DROP AS
  SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index
   WHERE indrelid = 'search.documents_unpartitioned'::regclass AND NOT indisprimary;
DROP TABLE search.documents_unpartitioned;
DO $$
DECLARE
  definition text;
BEGIN
  FOR definition IN SELECT i.definition FROM search_document_indexes i LOOP
    EXECUTE regexp_replace(definition, ' ON (search\.)?documents_unpartitioned ', ' ON search.documents ');
  END LOOP;
END $$;

-- The derived text columns (migration 011's function), computed here for both halves.
CREATE TRIGGER documents_derive_from_text BEFORE INSERT OR UPDATE ON search.documents
  FOR EACH ROW EXECUTE FUNCTION search.derive_from_text();

-- The BM25 statistics, kept by row triggers: PostgreSQL cannot collect the transition tables of
-- migration 012's statement triggers from a foreign partition ("cannot collect transition tuples
-- from child foreign tables"). Each row counts as those statements count it: +1 for an inserted
-- row and a changed row's new text, −1 for a deleted row and a changed row's old text, rows that
-- reach 0 deleted. Writers of one corpus are serialised by its corpus lock (search-corpus.repository.ts).
CREATE FUNCTION search.count_document(corpus text, tsv tsvector, len integer, sign integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search.corpus_stats AS s (community_id, docs, total_length) VALUES (corpus, sign, sign * coalesce(len, 0))
  ON CONFLICT (community_id) DO UPDATE SET docs = s.docs + EXCLUDED.docs, total_length = s.total_length + EXCLUDED.total_length;
  INSERT INTO search.term_stats AS s (community_id, term, df)
  SELECT corpus, t.term, sign FROM unnest(tsvector_to_array(tsv)) AS t(term) ORDER BY t.term
  ON CONFLICT (community_id, term) DO UPDATE SET df = s.df + EXCLUDED.df;
  IF sign < 0 THEN
    DELETE FROM search.corpus_stats WHERE community_id = corpus AND docs <= 0;
    DELETE FROM search.term_stats WHERE community_id = corpus AND term = ANY(tsvector_to_array(tsv)) AND df <= 0;
  END IF;
END $$;

CREATE FUNCTION search.term_stats_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.community_id, OLD.search_tsv) IS NOT DISTINCT FROM (NEW.community_id, NEW.search_tsv) THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM search.count_document(OLD.community_id, OLD.search_tsv, OLD.doc_length, -1);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM search.count_document(NEW.community_id, NEW.search_tsv, NEW.doc_length, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER documents_term_stats AFTER INSERT OR UPDATE OR DELETE ON search.documents
  FOR EACH ROW EXECUTE FUNCTION search.term_stats_row();
CREATE TRIGGER documents_term_stats_truncate AFTER TRUNCATE ON search.documents
  FOR EACH STATEMENT EXECUTE FUNCTION search.clear_term_stats();

COMMIT;
