-- The event log: one stream per game (and per tournament), append-only.

CREATE TABLE streams (
    stream_id   text PRIMARY KEY,
    kind        text NOT NULL,               -- 'game', 'tournament'
    version     bigint NOT NULL DEFAULT 0,   -- the last event's version
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- `position` orders every event of every stream for readers that follow
-- everything. It is drawn while the appender holds the global append lock
-- (see eventstore.APPEND_LOCK), so positions become visible in order and a
-- reader that has seen position p has seen every event below p.
CREATE TABLE events (
    position    bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    stream_id   text NOT NULL REFERENCES streams (stream_id),
    version     bigint NOT NULL,
    type        text NOT NULL,
    data        bytea NOT NULL,              -- the full msgspec JSON of the event
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version)
);

CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only: % on events is forbidden', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER events_no_update_or_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Client-chosen command ids, per stream: a retry returns the stored outcome.
CREATE TABLE commands (
    stream_id   text NOT NULL,
    command_id  text NOT NULL,
    outcome     bytea NOT NULL,              -- {"version": v, "first": f, "last": l, "seat": s}
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, command_id)
);

CREATE TABLE players (
    player_id   uuid PRIMARY KEY,
    name        text NOT NULL,
    kind        text NOT NULL DEFAULT 'human',   -- 'human', 'agent'
    token_hash  bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Table metadata (the lobby). Gameplay lives in the game's stream.
CREATE TABLE games (
    game_id     uuid PRIMARY KEY,
    game        text NOT NULL,
    players     int NOT NULL,
    options     jsonb NOT NULL,
    ranked      boolean NOT NULL,
    seed        bigint NOT NULL,              -- server-side until the game's final event reveals it
    status      text NOT NULL DEFAULT 'open', -- 'open', 'playing', 'finished'
    time_control jsonb,                       -- {"move_ms": ..., "bank_ms": ...}: deadlines per move
    tournament_id text,                       -- the tournament stream this table belongs to
    created_by  uuid REFERENCES players (player_id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX games_status ON games (status);

CREATE TABLE seats (
    game_id     uuid NOT NULL REFERENCES games (game_id),
    seat        int NOT NULL,
    player_id   uuid REFERENCES players (player_id),
    bot         text,                          -- house bot name when a bot holds the seat
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id),
    CHECK ((player_id IS NULL) <> (bot IS NULL))
);
