-- From when a feed's items are at risk if it is not polled (issue #70, item 4): the time past
-- which more than the overflow risk allows may scroll out of its document unseen. A daemon behind
-- schedule takes these polls first, then feeds never polled, then the rest of what is overdue
-- (archive/due.ts): on the first day at 100,000 feeds, re-polls of feeds polled minutes before took
-- every slot and tens of thousands of subscribed feeds were not polled once in an hour. Null until
-- a feed's next poll is planned with a rate (no backfill: each poll writes it).
ALTER TABLE feeds ADD COLUMN poll_risk_at TEXT;
CREATE INDEX feeds_at_risk ON feeds(poll_risk_at) WHERE enabled = 1 AND subscribed = 1;
