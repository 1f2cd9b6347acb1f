-- Stored document vectors (docs/SEARCH-RANKING.md "Vectors"). Each document keeps the active
-- embedder's vector of its text, written by the search service when the document is indexed
-- (pipeline/vectors.ts), and the name of the embedder that made it: vectors of two embedders are
-- never compared. A plain real[] runs on every engine; where pgvector exists, the service builds
-- an HNSW index over `embedding::vector(N)` for the nearest-neighbour leg.
ALTER TABLE search.documents
  ADD COLUMN embedding real[],
  ADD COLUMN embedding_model text;
-- Out of line and uncompressed: compressed, a mostly-zero vector stayed in the row and nearly
-- doubled the table the full-text legs read row by row (339 → 619 MB at 400k documents, community
-- p95 192 → 246 ms); out of line the rows stay as they were, and only the ≤ 200 candidates a search
-- scores fetch their vector (docs/SEARCH-RANKING.md "Vectors").
ALTER TABLE search.documents ALTER COLUMN embedding SET STORAGE EXTERNAL;

-- A vector describes the text it was made from: whatever changes a document's text (an index call,
-- an enrichment, a direct edit) clears it in the same statement, so no stale vector is ever read.
-- The service then embeds the new text and stores it only if the text is still the one embedded.
CREATE FUNCTION search.clear_stale_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.name, NEW.headline, NEW.bio, NEW.organization, NEW.location, NEW.enrichment_text)
     IS DISTINCT FROM (OLD.name, OLD.headline, OLD.bio, OLD.organization, OLD.location, OLD.enrichment_text) THEN
    NEW.embedding := NULL;
    NEW.embedding_model := NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER documents_clear_stale_embedding
  BEFORE UPDATE ON search.documents
  FOR EACH ROW EXECUTE FUNCTION search.clear_stale_embedding();

-- pgvector where the engine offers it (PGlite ships it; a PostgreSQL server needs the package).
-- Without the privilege to create it, the search runs without the leg, as on an engine without it.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'pgvector is available but could not be created: %', SQLERRM;
END $$;
