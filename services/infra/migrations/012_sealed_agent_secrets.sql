-- Push agents' signing secrets are stored encrypted (services/app/agents/
-- secrets.py) and can be rotated with a grace period. The plaintext column
-- stays only until every row is sealed: a SQL migration has no key, so the
-- first process to start seals each plaintext secret and clears it
-- (seal_plaintext_secrets, run at every start; nothing writes plaintext).
ALTER TABLE agents ADD COLUMN sealed_secret text;
-- The secret before the last rotation, still signing calls (beside the new
-- one) until previous_secret_until.
ALTER TABLE agents ADD COLUMN previous_sealed_secret text;
ALTER TABLE agents ADD COLUMN previous_secret_until timestamptz;
