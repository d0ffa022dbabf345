-- Play now: people waiting for a game (services/app/games/quickplay.py).
-- One row per ticket; a person waits once per game and player count (the
-- partial unique index: a second tab finds the first tab's ticket). A
-- ticket is seated with its table and seat in the transaction that decides
-- the group, under the pool's advisory lock.
CREATE TABLE IF NOT EXISTS quick_play (
    ticket_id   uuid PRIMARY KEY,
    player_id   uuid NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    game        text NOT NULL,
    players     integer NOT NULL,
    rating      double precision NOT NULL,
    bots_now    boolean NOT NULL DEFAULT false,
    status      text NOT NULL DEFAULT 'waiting', -- waiting, seated, withdrawn
    game_id     uuid,
    seat        integer,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS quick_play_one_wait ON quick_play (player_id, game, players)
    WHERE status = 'waiting';
CREATE INDEX IF NOT EXISTS quick_play_waiting ON quick_play (game, players, created_at)
    WHERE status = 'waiting';
