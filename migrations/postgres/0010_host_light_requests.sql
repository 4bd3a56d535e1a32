-- A host's lighter requests across daemons (issue #70, item 2), as one daemon's host queue keeps
-- them (net/host-queue.ts): a page's requisites start their own short rest after the last request
-- to the host, while a page waits next_at (perHostDelay after the last page). Before, every
-- request through the shared gate rested the host a page's delay, so on PostgreSQL a CDN serving
-- every page's fonts took one request a second, and a capture's requisites took ten times longer
-- than on SQLite (bench:scale --db=sqlite,postgres --pin --requisites=on).
ALTER TABLE hosts ADD COLUMN last_end text NOT NULL DEFAULT '';  -- when the last request to the host ended
