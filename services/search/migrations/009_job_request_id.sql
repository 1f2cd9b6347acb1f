-- The request that started a search (its X-Request-Id): the charge, made later by whichever worker
-- or poll stores the result, carries it to the ledger, so the payer's ledger names the API call.
ALTER TABLE search.search_jobs ADD COLUMN request_id text;
