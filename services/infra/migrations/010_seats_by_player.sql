-- A player's or an agent's tables are looked up by player: the pull agent's
-- stream rescans its games in progress every keep-alive (services/app/agents/
-- stream.py) and "My games" lists a player's tables (services/app/games/
-- watching.py). Seats were indexed by (game_id, ...) only, so each lookup
-- read the whole seats table, which grows with every game ever played.
CREATE INDEX IF NOT EXISTS seats_by_player ON seats (player_id);
