-- A log nobody can quietly rewrite (engines/chain.py, docs/fairness.md):
-- each event carries the keyed hash of the one before and its own, and
-- each stream its head and its secret chain key. NULL for what was stored
-- before: old streams stay unchained (their key is NULL), and `verify` says
-- so. The append computes the hashes under the append lock
-- (services/infra/eventstore.py), so nothing here but the columns.
ALTER TABLE events ADD COLUMN IF NOT EXISTS prev_hash text;
ALTER TABLE events ADD COLUMN IF NOT EXISTS hash text;
ALTER TABLE streams ADD COLUMN IF NOT EXISTS head_hash text;
ALTER TABLE streams ADD COLUMN IF NOT EXISTS chain_key text;
