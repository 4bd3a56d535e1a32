-- Work that a scheduler pass looks up is found through indexes bounded by the work itself, never
-- by scanning history (a pass must cost the same on day 1 and after a million snapshots).

-- Captured pages waiting for extraction: a queue row is added with the snapshot and removed in
-- the transaction that stores its extraction. (Before, a pass found them with an anti-join of
-- snapshots against extractions.)
CREATE TABLE extraction_queue (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshots(id),
  queued_at   TEXT NOT NULL,
  -- 0: an item's first capture, 1: a revisit (first captures are extracted first)
  priority    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX extraction_queue_order ON extraction_queue(priority, snapshot_id DESC);
INSERT INTO extraction_queue (snapshot_id, queued_at)
  SELECT snapshots.id, snapshots.fetched_at FROM snapshots
  LEFT JOIN extractions ON extractions.snapshot_id = snapshots.id
  WHERE extractions.snapshot_id IS NULL AND snapshots.sha256 IS NOT NULL AND snapshots.status BETWEEN 200 AND 299
    AND snapshots.item_id IS NOT NULL;

-- Feeds due for a poll (never polled ones sort first: NULL is smallest).
CREATE INDEX feeds_due ON feeds(next_poll_at) WHERE enabled = 1 AND subscribed = 1;
-- Pages waiting for their first capture, newest item first.
CREATE INDEX items_capture ON items(first_seen DESC, id DESC) WHERE page_state = 'pending';
-- Articles due for a revisit (NULL: waiting for extraction, or the schedule has run out).
DROP INDEX articles_due;
CREATE INDEX articles_due ON articles(next_check_at) WHERE next_check_at IS NOT NULL;

-- Lookups by foreign key that had no index.
CREATE INDEX extractions_item ON extractions(item_id);
CREATE INDEX versions_snapshot ON versions(snapshot_id);
CREATE INDEX wrappers_feed ON wrappers(feed_id);
CREATE INDEX items_feed_state ON items(feed_id, page_state);
CREATE INDEX articles_item_feed ON articles(feed_id, next_check_at);

-- Each article's comparison key: the object a new capture is compared with, and how it was
-- extracted. It is the latest version's object until a new wrapper changes how pages are
-- extracted; then the key is rebased once (the latest version's snapshot re-extracted the new
-- way, its object kept in compare_object) instead of on every check.
ALTER TABLE articles ADD COLUMN compare_hash TEXT;
ALTER TABLE articles ADD COLUMN compare_method TEXT;
ALTER TABLE articles ADD COLUMN compare_wrapper_id INTEGER REFERENCES wrappers(id);
ALTER TABLE articles ADD COLUMN compare_snapshot_id INTEGER REFERENCES snapshots(id);
ALTER TABLE articles ADD COLUMN compare_object TEXT;   -- JSON; NULL: the latest version's blocks
UPDATE articles SET (compare_hash, compare_method, compare_wrapper_id, compare_snapshot_id) =
  (SELECT hash, method, wrapper_id, snapshot_id FROM versions WHERE versions.article_id = articles.id ORDER BY n DESC LIMIT 1);

-- Distinct pages (items) of each template, counted as they come instead of per extraction.
ALTER TABLE templates ADD COLUMN pages INTEGER NOT NULL DEFAULT 0;
UPDATE templates SET pages = (SELECT COUNT(DISTINCT item_id) FROM extractions WHERE extractions.template_id = templates.id);

-- Who runs the daemon on this database: one at a time. The holder renews its heartbeat; a lease
-- whose heartbeat is older than the timeout is stale (its process died) and may be taken over.
-- The status column carries the holder's last report (backlog, lag, work per minute) as JSON.
CREATE TABLE leases (
  name         TEXT PRIMARY KEY,        -- 'daemon'
  owner        TEXT NOT NULL,           -- a random id per process
  pid          INTEGER NOT NULL,
  host         TEXT NOT NULL,
  started_at   TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL,
  status       TEXT
);

-- The digest of every capture's payload, kept when its body is not: a revisit whose article
-- object did not change keeps no body (the capture it matched has one), only this digest, its
-- headers and its time; the WARC export writes it as a revisit record.
ALTER TABLE snapshots ADD COLUMN payload_digest TEXT;
UPDATE snapshots SET payload_digest = sha256;
