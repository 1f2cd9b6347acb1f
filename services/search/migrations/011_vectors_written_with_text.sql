-- A document's vector may now be written in the same statement as its text (indexing embeds the
-- text before it writes it: pipeline/vectors.ts `prepare`), instead of by a second UPDATE after the
-- commit — which wrote every row twice and was a third of an enrichment run's indexing time
-- (docs/BENCHMARKS.md). The rule stays "a vector describes the text it was made from": a change
-- of text clears the vector unless the same write sets a new one, which its writer made from that
-- text. A write that changes the text and leaves the vector as it was still clears it.
CREATE OR REPLACE FUNCTION search.derive_from_text() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (NEW.name, NEW.headline, NEW.bio, NEW.organization, NEW.location, NEW.enrichment_text)
     IS DISTINCT FROM (OLD.name, OLD.headline, OLD.bio, OLD.organization, OLD.location, OLD.enrichment_text) THEN
    NEW.search_tsv :=
      setweight(to_tsvector('english'::regconfig, coalesce(NEW.name, '') || ' ' || coalesce(NEW.headline, '')), 'A') ||
      setweight(to_tsvector('english'::regconfig, coalesce(NEW.organization, '') || ' ' || coalesce(NEW.location, '')), 'B') ||
      setweight(to_tsvector('english'::regconfig, coalesce(NEW.bio, '') || ' ' || coalesce(NEW.enrichment_text, '')), 'C');
    NEW.name_tsv := to_tsvector('simple'::regconfig, coalesce(NEW.name, '') || ' ' || coalesce(NEW.organization, ''));
    NEW.doc_length := search.tsv_length(NEW.search_tsv);
    IF TG_OP = 'UPDATE' AND NEW.embedding IS NOT DISTINCT FROM OLD.embedding THEN
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
