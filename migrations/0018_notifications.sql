-- Notifications (issue #53): a durable outbox of webhook deliveries. Each webhook reads the
-- archive's events — versions (version 1: a new article) and polls that found a gap — after its
-- cursor, and queues one delivery per event, in the same transaction that moves the cursor: a
-- restart neither loses nor repeats one. A delivery is retried with back-off until a receiver
-- answers 2xx; then it is marked delivered and never sent again.
CREATE TABLE notify_cursors (
  webhook     TEXT PRIMARY KEY,         -- the webhook's URL
  version_id  INTEGER NOT NULL,         -- the last version queued (or skipped)
  poll_id     INTEGER NOT NULL          -- the last poll looked at for gaps
);
CREATE TABLE notifications (
  id               INTEGER PRIMARY KEY,
  webhook          TEXT NOT NULL,
  event            TEXT NOT NULL,       -- article | version | gap
  payload          TEXT NOT NULL,       -- the JSON body, without its delivery time
  created_at       TEXT NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,                -- NULL once delivered
  delivered_at     TEXT,
  last_status      INTEGER,
  last_error       TEXT
);
CREATE INDEX notifications_due ON notifications(next_attempt_at) WHERE next_attempt_at IS NOT NULL;
