-- Names compared the same way everywhere (services/app/names.py): the key
-- two spellings of one name share (NFKC + casefold, computed in Python, not
-- by this database's locale-dependent lower()), and the TR39 skeleton two
-- look-alike names share. Sign-in finds an account by name_key; a new name
-- whose key or skeleton is already someone's is refused. Existing rows are
-- filled by the API process at start (Players.fill_name_columns) where these
-- are NULL; until then they are still found by lower(name), and migration
-- 008's unique index on lower(name) stays.
ALTER TABLE players ADD COLUMN IF NOT EXISTS name_key text;
ALTER TABLE players ADD COLUMN IF NOT EXISTS name_skeleton text;
CREATE INDEX IF NOT EXISTS players_name_key ON players (name_key);
CREATE INDEX IF NOT EXISTS players_name_skeleton ON players (name_skeleton);
