-- The kept fetches of each requisite (issue #70, item 4): a capture looks up each requisite's last
-- kept fetch (its validators for a conditional GET), replay the kept fetch nearest in time. Through
-- requisites_url those lookups walk past every fetch that kept nothing: a URL never kept (refused,
-- unreachable) gains a row at every capture that names it, and each lookup walked all of them — on
-- the first day at 100,000 feeds, 1,991 rows for one such image, and growing.
CREATE INDEX requisites_kept ON requisites(url, fetched_at) WHERE sha256 IS NOT NULL;
