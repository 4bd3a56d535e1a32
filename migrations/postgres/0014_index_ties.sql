-- Each queue's and each history's index ends in id (issue #70, item 4). Their queries order by
-- (time, id): on SQLite every index entry ends in the rowid, so a walk of the index gives that
-- order and stops at LIMIT; on PostgreSQL an index on the time alone leaves ties unordered, and the
-- planner sorts them or walks another index. Found at 100,000 feeds: a stylesheet shared by 6,000
-- captures (all of one fetch time) sorted 6,000 rows to find its last.
DROP INDEX feeds_due;
CREATE INDEX feeds_due ON feeds (next_poll_at, id) WHERE enabled = 1 AND subscribed = 1;
DROP INDEX feeds_at_risk;
CREATE INDEX feeds_at_risk ON feeds (poll_risk_at, id) WHERE enabled = 1 AND subscribed = 1;
DROP INDEX items_retry;
CREATE INDEX items_retry ON items (page_due_at, id) WHERE page_state = 'pending' AND feed_enabled = 1 AND page_attempts > 0;
DROP INDEX articles_due;
CREATE INDEX articles_due ON articles (next_check_at, id) WHERE next_check_at IS NOT NULL AND feed_enabled = 1;
DROP INDEX requisites_url;
CREATE INDEX requisites_url ON requisites (url, fetched_at, id);
-- The never-polled feeds, in id order: PostgreSQL does not take `next_poll_at IS NULL` as fixing
-- the first column of feeds_due, so it walked the primary key instead, past every feed already
-- polled (on the first day at 100,000 feeds, 69 ms a pass at 11,529 polled, and growing).
CREATE INDEX feeds_never_polled ON feeds (id) WHERE next_poll_at IS NULL AND enabled = 1 AND subscribed = 1;
