-- The high-impact postings of each document, indexed on their own (docs/SEARCH-RANKING.md
-- "Retrieve"): the words of the name and headline (search_tsv's label A), where a profile says
-- what the person does. A retrieval tier over a common word reads those documents first, and the
-- rest only while they are too few (pipeline/retrieve.ts, `headlineFirst`): BM25F weighs label A
-- highest (LABEL_WEIGHT), ts_rank five times label C, and a headline's word is mostly in the bio
-- too. Without this index a broad word's tier read its matching rows in the order the index yields
-- them, up to its whole window (a random heap read each), and ranked the best of that sample.
-- One index per corpus kind, as migration 005: a search reads only its corpus's postings.
CREATE INDEX documents_headline_tsv_public ON search.documents USING gin (ts_filter(search_tsv, '{a}')) WHERE community_id = '';
CREATE INDEX documents_headline_tsv_communities ON search.documents USING gin (ts_filter(search_tsv, '{a}')) WHERE community_id <> '';
