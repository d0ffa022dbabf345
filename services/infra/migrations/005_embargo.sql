-- Duplicate tournaments play one deal at several tables: a finished table's
-- log stays withheld until every table of its round has finished.
ALTER TABLE games ADD COLUMN embargoed boolean NOT NULL DEFAULT false;
