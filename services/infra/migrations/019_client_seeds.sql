-- Client seeds: each seat may add entropy to the deal (docs/fairness.md,
-- "Client seeds"). The salt of the server's commitment is drawn when the
-- table is created, so the commitment can be published before any seat
-- sends its seed; it stays private until the game's final event reveals it.
-- Tables created before this migration have none and are dealt as before.
ALTER TABLE games ADD COLUMN salt text;

-- A Play now ticket brings its person's client seed to the table it is seated at.
ALTER TABLE quick_play ADD COLUMN client_seed text;

CREATE TABLE client_seeds (
    game_id     uuid NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat        int NOT NULL,
    client_seed text NOT NULL,
    PRIMARY KEY (game_id, seat)
);
