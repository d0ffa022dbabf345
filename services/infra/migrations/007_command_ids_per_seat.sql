-- Command ids are scoped per seat. With one id space per
-- game, a person could take the id an agent would use next (`<game>:<version>`,
-- as docs/agents.md suggested) and make its move fail, and two agents calling
-- Stop at the same version collided. Server commands without a seat (the
-- deal, timers) keep one space of their own (seat NULL, indexed as -1).
ALTER TABLE commands ADD COLUMN seat int;
-- Stored commands keep working: their outcome has always named the seat.
UPDATE commands SET seat = (convert_from(outcome, 'UTF8')::jsonb ->> 'seat')::int;
ALTER TABLE commands DROP CONSTRAINT commands_pkey;
CREATE UNIQUE INDEX commands_per_seat ON commands (stream_id, coalesce(seat, -1), command_id);
