-- Accounts for people in the browser.

-- A password lets a person sign in (argon2id, via argon2-cffi); NULL: the
-- player has only a token, as before.
ALTER TABLE players ADD COLUMN password_hash text;

-- Names of people and agents are unique, compared case-insensitively. Older
-- logs may hold duplicates: the first (by creation, then id) keeps its name,
-- every later one keeps its id and becomes "alice (2)", "alice (3)", ...,
-- skipping any suffixed name that is already taken.
DO $$
DECLARE
    dup record;
    n int;
BEGIN
    FOR dup IN
        SELECT player_id, name FROM (
            SELECT player_id, name,
                   row_number() OVER (PARTITION BY lower(name) ORDER BY created_at, player_id) AS rank
            FROM players
        ) ranked
        WHERE rank > 1
        ORDER BY lower(name), rank
    LOOP
        n := 2;
        WHILE EXISTS (SELECT 1 FROM players WHERE lower(name) = lower(dup.name || ' (' || n || ')')) LOOP
            n := n + 1;
        END LOOP;
        UPDATE players SET name = dup.name || ' (' || n || ')' WHERE player_id = dup.player_id;
        UPDATE agents SET name = dup.name || ' (' || n || ')' WHERE agent_id = dup.player_id;
    END LOOP;
END $$;
CREATE UNIQUE INDEX players_name_ci ON players (lower(name));

-- Browser sessions: the cookie carries a session id signed with the shared
-- secret; the row is what signing out (or a password change) deletes.
CREATE TABLE sessions (
    session_hash bytea PRIMARY KEY,              -- sha256 of the session id
    player_id    uuid NOT NULL REFERENCES players (player_id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_player ON sessions (player_id);

-- Secrets every API process shares (the session key when
-- HANAMICHI_SESSION_SECRET is not set), drawn once by the first process.
CREATE TABLE app_secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);

-- A table's own house-bot delay: NULL keeps the process setting
-- (HANAMICHI_BOT_DELAY_MS, 0 by default: benches, tournaments of bots).
ALTER TABLE games ADD COLUMN bot_delay_ms int;
