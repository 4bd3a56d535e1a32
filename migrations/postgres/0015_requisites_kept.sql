-- The kept fetches of each requisite, searched without walking past the fetches that kept nothing
-- (migrations/0031_requisites_kept.sql); ending in id, as the other histories' indexes (0014).
CREATE INDEX requisites_kept ON requisites (url, fetched_at, id) WHERE sha256 IS NOT NULL;
