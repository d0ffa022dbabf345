-- Failing never pays. A seat handed to a house bot after its strikes is ranked last at
-- its table (hm.game_finished `forfeited`): the leaderboard shows how often.
ALTER TABLE ratings ADD COLUMN forfeits int NOT NULL DEFAULT 0;
ALTER TABLE rating_changes ADD COLUMN forfeited boolean NOT NULL DEFAULT false;

-- Agent reports: the first bytes of each answer (or error body) for the
-- owner's turn log, and a sparring series' settings.
ALTER TABLE agent_turns ADD COLUMN answer text NOT NULL DEFAULT '';
CREATE INDEX agent_turns_agent_game ON agent_turns (agent_id, game_id, version);
ALTER TABLE sparring ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE sparring ADD COLUMN bot_game_ids uuid[];  -- duplicate: the same deals with the house bot in the seat
