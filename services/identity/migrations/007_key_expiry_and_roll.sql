-- A key may expire (chosen at mint, or set by a roll: the replaced key stays valid for a grace
-- period). Authentication refuses a key past expires_at, saying it expired. replaced_by names the
-- key a roll minted in its place, so a key is rolled once and the list can say what replaced it.
-- Listing is newest first (created_at, id), keyset-paged, per minting user.
ALTER TABLE identity.api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE identity.api_keys ADD COLUMN replaced_by text;
CREATE INDEX api_keys_minted_by_newest ON identity.api_keys (minted_by_user_id, created_at DESC, id DESC);
