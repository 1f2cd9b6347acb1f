-- One full-text index per corpus kind instead of one over both (docs/SEARCH-RANKING.md "Database").
-- A GIN match yields row ids; the scope is then checked on each row in the table. With one index
-- over everything, a community search fetched — and threw away — the matching rows of the public
-- corpus too (nine in ten at 100k members and 1M public profiles), and the reverse. Partial indexes
-- split by `community_id = ''` keep each search to its own corpus's rows: retrieval (pipeline/
-- retrieve.ts) names the corpus in each branch of its statements, so the planner picks the index.
DROP INDEX search.documents_search_tsv;
DROP INDEX search.documents_name_tsv;
CREATE INDEX documents_search_tsv_public ON search.documents USING gin (search_tsv) WHERE community_id = '';
CREATE INDEX documents_search_tsv_communities ON search.documents USING gin (search_tsv) WHERE community_id <> '';
CREATE INDEX documents_name_tsv_public ON search.documents USING gin (name_tsv) WHERE community_id = '';
CREATE INDEX documents_name_tsv_communities ON search.documents USING gin (name_tsv) WHERE community_id <> '';
