-- Feed events (issue #53, notifications): a poll that made its feed failing (the third failure in
-- a row) or gone (a 404/410 after a poll that did not fail) says so, and the notifier reads it
-- from the polls after each webhook's cursor, as it reads gaps.
ALTER TABLE polls ADD COLUMN feed_event TEXT;   -- failing | gone
