-- The caps on what one account holds (services/app/caps.py) count a player's
-- tables that are not finished, and the house bots seated at them, at every
-- table created and every bot seated: without this index each count read
-- every table ever played.
CREATE INDEX IF NOT EXISTS games_unfinished_by_creator ON games (created_by) WHERE status <> 'finished';
