-- A table's status may now also be 'cancelled': its creator called it off
-- before the deal (services/app/games/leaving.py). A cancelled table holds
-- nothing, so the caps (services/app/caps.py) count only tables that are
-- open or playing, and this index serves those counts.
DROP INDEX IF EXISTS games_unfinished_by_creator;
CREATE INDEX IF NOT EXISTS games_open_or_playing_by_creator ON games (created_by)
    WHERE status IN ('open', 'playing');
