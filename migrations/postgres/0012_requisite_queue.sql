-- Captures whose requisites are still to be fetched (migrations/0029_requisite_queue.sql, issue #70,
-- item 4): a daemon killed with captures waiting for their requisites leaves them here, for itself
-- when it starts again or for another daemon once its claims have expired.
CREATE TABLE requisite_queue (
  snapshot_id bigint PRIMARY KEY REFERENCES snapshots (id),
  queued_at   text NOT NULL
);
