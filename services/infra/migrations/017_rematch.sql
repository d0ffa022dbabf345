-- "Play again": a finished table's rematch is a new table that names the
-- finished one. One rematch per table (the unique index): of two people
-- asking at once, the second finds the first one's table.
ALTER TABLE games ADD COLUMN IF NOT EXISTS rematch_of uuid;
CREATE UNIQUE INDEX IF NOT EXISTS games_one_rematch ON games (rematch_of) WHERE rematch_of IS NOT NULL;
