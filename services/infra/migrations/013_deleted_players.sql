-- Account deletion (services/app/deletion.py): the players row stays, for
-- the ids the log and the seats refer to, but its name becomes a pseudonym
-- derived from the id and every credential and personal field goes.
ALTER TABLE players ADD COLUMN deleted_at timestamptz;

-- A deleted push agent keeps no endpoint (it may name its owner's host).
DO $$
DECLARE
    old text;
BEGIN
    SELECT conname INTO old FROM pg_constraint
    WHERE conrelid = 'agents'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%endpoint IS NOT NULL%';
    IF old IS NOT NULL THEN
        EXECUTE format('ALTER TABLE agents DROP CONSTRAINT %I', old);
    END IF;
END $$;
ALTER TABLE agents ADD CONSTRAINT agents_push_endpoint
    CHECK (status = 'deleted' OR (mode = 'push') = (endpoint IS NOT NULL));
