-- Tournament listing (the stream is the truth; this row is for finding them).
CREATE TABLE tournaments (
    tournament_id uuid PRIMARY KEY,
    game          text NOT NULL,
    start_at      timestamptz NOT NULL,
    status        text NOT NULL DEFAULT 'registering', -- registering, running, finished, cancelled
    created_by    uuid REFERENCES players (player_id),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tournaments_status_start ON tournaments (status, start_at);
CREATE INDEX games_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL;
