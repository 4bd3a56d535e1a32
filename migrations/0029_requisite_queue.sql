-- Captures whose requisites are still to be fetched (issue #70, item 4): queued in the capture's own
-- transaction, taken off in the one that records its requisites. The daemon's lane held them in
-- memory alone, and a kill or a restart lost the waiting ones (up to two thousand at 100,000 feeds):
-- their pages were kept without their pictures and style sheets, and nothing said so. Now a daemon
-- that starts takes up what its last run left. No backfill: a requisite is fetched with its capture
-- or not at all (a page's pictures of today are no record of an older capture's).
CREATE TABLE requisite_queue (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshots(id),
  queued_at   TEXT NOT NULL
);
