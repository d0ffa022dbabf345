-- Post-game analyses (services/app/analyses.py): one row per game
-- and analysis version, a projection rebuilt when the version changes. The
-- rows are also the queue the `analyse_game` job claims from: tournament
-- games first (priority 0), then requests (1), oldest first; a `running` row
-- whose worker died is claimed again once its start is older than the stale
-- limit.
CREATE TABLE analyses (
    game_id          uuid NOT NULL,
    analysis_version int NOT NULL,
    status           text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    priority         int NOT NULL DEFAULT 1,
    requested_by     text,  -- 'player:<id>', 'ip:<address>', or NULL (a tournament's round)
    requested_at     timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    attempts         int NOT NULL DEFAULT 0,
    done             int NOT NULL DEFAULT 0,
    total            int NOT NULL DEFAULT 0,
    result           jsonb,
    elapsed_ms       int,
    error            text,
    PRIMARY KEY (game_id, analysis_version)
);

CREATE INDEX analyses_queue ON analyses (priority, requested_at) WHERE status IN ('queued', 'running');
CREATE INDEX analyses_requester ON analyses (requested_by, requested_at) WHERE requested_by IS NOT NULL;
