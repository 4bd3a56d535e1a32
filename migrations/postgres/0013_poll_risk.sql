-- From when a feed's items are at risk if it is not polled (migrations/0030_poll_risk.sql, issue #70,
-- item 4): a daemon behind schedule takes these polls first, then feeds never polled, then the rest.
ALTER TABLE feeds ADD COLUMN poll_risk_at text;
CREATE INDEX feeds_at_risk ON feeds (poll_risk_at) WHERE enabled = 1 AND subscribed = 1;
