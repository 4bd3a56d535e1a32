-- Gaps (issue #52): a poll whose document shares nothing with what was seen before may have
-- lost items. Forest follows the feed's archive back and records the gap either way: on the
-- poll, and as the feed's last gap (shown by status, the dashboard and the API). JSON: since,
-- until, recovered, complete, missing, pages.
ALTER TABLE polls ADD COLUMN gap TEXT;
ALTER TABLE feeds ADD COLUMN last_gap TEXT;
