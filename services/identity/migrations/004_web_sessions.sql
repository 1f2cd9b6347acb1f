-- The settings web app's sign-in (docs/SETTINGS.md). Both tables keep only keyed hashes (HMAC-SHA256 with the server pepper) of the
-- values the browser holds: a leaked table signs nobody in.

-- One-time sign-in links: redeemed at most once (used_at), and only before expires_at.
CREATE TABLE identity.sign_in_links (
  token_hash  text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES identity.users(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);

-- Server-side sessions. A session ends when signed out (ended_at), when unused for idle_seconds,
-- or at absolute_expires_at, whichever comes first.
CREATE TABLE identity.web_sessions (
  id_hash             text PRIMARY KEY,
  user_id             text NOT NULL REFERENCES identity.users(id) ON DELETE CASCADE,
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_seen_at        timestamptz NOT NULL DEFAULT now(),
  idle_seconds        integer NOT NULL CHECK (idle_seconds > 0),
  absolute_expires_at timestamptz NOT NULL,
  ended_at            timestamptz
);
CREATE INDEX web_sessions_user ON identity.web_sessions (user_id);
