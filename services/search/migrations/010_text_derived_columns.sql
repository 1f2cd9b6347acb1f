-- What BM25 and the name leg read of a document's text — search_tsv, name_tsv and doc_length — is
-- derived by one row trigger instead of as generated columns (migrations 003 and 007), for two
-- reasons measured on PostgreSQL 15 (docs/SEARCH-RANKING.md "Database"):
--   - PostgreSQL recomputes every stored generated column on every UPDATE of the row, whatever it
--     changes: storing a vector or stamping a re-index run parsed the whole text three times over
--     (doc_length repeated search_tsv's expression). The trigger derives them only when the text
--     changes, search_tsv once and doc_length from it.
--   - The same trigger clears the stale vector (it replaces migration 006's), so one function
--     decides what a text change means.
-- The columns keep their values; the trigger keeps them equal to what the expressions give: a
-- write that leaves the text alone keeps the derived values, whatever it sets them to.
ALTER TABLE search.documents ALTER COLUMN doc_length DROP EXPRESSION;
ALTER TABLE search.documents ALTER COLUMN search_tsv DROP EXPRESSION;
ALTER TABLE search.documents ALTER COLUMN name_tsv DROP EXPRESSION;

CREATE FUNCTION search.derive_from_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (NEW.name, NEW.headline, NEW.bio, NEW.organization, NEW.location, NEW.enrichment_text)
     IS DISTINCT FROM (OLD.name, OLD.headline, OLD.bio, OLD.organization, OLD.location, OLD.enrichment_text) THEN
    NEW.search_tsv :=
      setweight(to_tsvector('english'::regconfig, coalesce(NEW.name, '') || ' ' || coalesce(NEW.headline, '')), 'A') ||
      setweight(to_tsvector('english'::regconfig, coalesce(NEW.organization, '') || ' ' || coalesce(NEW.location, '')), 'B') ||
      setweight(to_tsvector('english'::regconfig, coalesce(NEW.bio, '') || ' ' || coalesce(NEW.enrichment_text, '')), 'C');
    NEW.name_tsv := to_tsvector('simple'::regconfig, coalesce(NEW.name, '') || ' ' || coalesce(NEW.organization, ''));
    NEW.doc_length := search.tsv_length(NEW.search_tsv);
    -- A vector describes the text it was made from: a new text's is made after (pipeline/vectors.ts).
    IF TG_OP = 'UPDATE' THEN
      NEW.embedding := NULL;
      NEW.embedding_model := NULL;
    END IF;
  ELSE
    NEW.search_tsv := OLD.search_tsv;
    NEW.name_tsv := OLD.name_tsv;
    NEW.doc_length := OLD.doc_length;
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER documents_clear_stale_embedding ON search.documents;
DROP FUNCTION search.clear_stale_embedding();
CREATE TRIGGER documents_derive_from_text
  BEFORE INSERT OR UPDATE ON search.documents
  FOR EACH ROW EXECUTE FUNCTION search.derive_from_text();

-- Room on each page for a row's next version: an update that leaves the text (a stored vector, a
-- re-index stamp) can then stay on its page without touching the indexes (a HOT update). Applies
-- to pages written from now on.
ALTER TABLE search.documents SET (fillfactor = 75);
