-- Ranking (services/search/pipeline): full-text search over weighted fields, and a name /
-- organization leg. Both are generated columns, so whatever writes documents (IndexDocuments)
-- needs no change: PostgreSQL computes them on every insert and update.
--   search_tsv: English stemming; name and headline weigh A, organization and location B,
--               bio and enrichment text C.
--   name_tsv:   name and organization, unstemmed ('simple'), for prefix matching of names.
-- No extension is required: this runs unchanged on PostgreSQL 15 and on PGlite. When pg_trgm is
-- installed (CREATE EXTENSION pg_trgm, by an operator), the pipeline also uses word_similarity()
-- to find misspelled names; see docs/SEARCH-RANKING.md.
ALTER TABLE search.documents
  ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || coalesce(headline, '')), 'A') ||
    setweight(to_tsvector('english'::regconfig, coalesce(organization, '') || ' ' || coalesce(location, '')), 'B') ||
    setweight(to_tsvector('english'::regconfig, coalesce(bio, '') || ' ' || coalesce(enrichment_text, '')), 'C')
  ) STORED,
  ADD COLUMN name_tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, coalesce(name, '') || ' ' || coalesce(organization, ''))
  ) STORED;

CREATE INDEX documents_search_tsv ON search.documents USING gin (search_tsv);
CREATE INDEX documents_name_tsv ON search.documents USING gin (name_tsv);
