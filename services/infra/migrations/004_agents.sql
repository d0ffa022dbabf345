-- Bot agents: players of kind 'agent' owned by a human player. Push agents
-- are called over HTTPS (signed with `secret`); pull agents read their own
-- SSE stream and act with their bot token like a person.
CREATE TABLE agents (
    agent_id    uuid PRIMARY KEY REFERENCES players (player_id),  -- the agent's player id
    owner_id    uuid NOT NULL REFERENCES players (player_id),
    name        text NOT NULL,
    games       text[] NOT NULL,
    mode        text NOT NULL CHECK (mode IN ('push', 'pull')),
    endpoint    text,                                        -- push only
    secret      text,                                        -- push only: HMAC key for request signatures
    status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'deleted')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((mode = 'push') = (endpoint IS NOT NULL))
);
CREATE INDEX agents_owner ON agents (owner_id, created_at);

-- One row per call to a push agent (written by the worker that made it):
-- answer times for sparring reports and the bench, and the time bank. A
-- seat's bank left = bank_ms - sum(overdraft_ms) of its rows in that game.
CREATE TABLE agent_turns (
    game_id      uuid NOT NULL,
    version      bigint NOT NULL,       -- the version the agent was asked to act at
    seat         int NOT NULL,
    agent_id     uuid NOT NULL,
    committed_ms double precision NOT NULL,  -- commit that made it the seat's turn (epoch ms)
    sent_ms      double precision NOT NULL,  -- request sent
    answered_ms  double precision,           -- answer received (NULL: none)
    done_ms      double precision,           -- the answer (or default move) committed
    used_ms      int NOT NULL,               -- time charged to the agent
    overdraft_ms int NOT NULL,               -- taken from the time bank
    outcome      text NOT NULL,              -- 'ok', 'timeout', 'invalid_response', 'illegal_action', 'unreachable', 'stale'
    detail       text NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, version, seat)
);
CREATE INDEX agent_turns_agent ON agent_turns (agent_id);

-- Tournaments an agent was entered into through the agents API (invitations
-- on its stream).
CREATE TABLE agent_entries (
    agent_id      uuid NOT NULL REFERENCES agents (agent_id),
    tournament_id uuid NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, tournament_id)
);

-- Sparring runs: N casual games of an agent against house bots.
CREATE TABLE sparring (
    sparring_id uuid PRIMARY KEY,
    agent_id    uuid NOT NULL REFERENCES agents (agent_id),
    game        text NOT NULL,
    game_ids    uuid[] NOT NULL,
    seats       int[] NOT NULL,        -- the agent's seat in each game
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sparring_agent ON sparring (agent_id, created_at);
