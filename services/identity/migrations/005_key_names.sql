-- What a key's owner calls it (the settings web app asks for one when minting; optional). Existing
-- keys are unnamed (''). The length rule is also checked at mint, with a clear message.
ALTER TABLE identity.api_keys ADD COLUMN name text NOT NULL DEFAULT '' CHECK (char_length(name) <= 100);
