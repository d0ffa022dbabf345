-- A process catching its copy of a game up reads only the commands
-- past its copy's version. That version was only inside `outcome` (JSON), so
-- each catch-up scanned and parsed the stream's whole command table (O(n^2)
-- over a game for a reader in another process). Stored commands keep
-- working: the column is filled from their outcome. A row without it (written
-- by a process of the previous release during an upgrade) is still found:
-- readers fall back to the outcome (services/infra/eventstore.py).
ALTER TABLE commands ADD COLUMN first_version bigint;
UPDATE commands SET first_version = (convert_from(outcome, 'UTF8')::jsonb ->> 'first')::bigint;
CREATE INDEX commands_by_version ON commands (stream_id, first_version);
