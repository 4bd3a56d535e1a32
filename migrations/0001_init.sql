-- Forest's first schema: subscriptions, polls, items and raw page captures.
-- Times are ISO-8601 UTC text (sortable, readable in the sqlite3 shell).

CREATE TABLE feeds (
  id                INTEGER PRIMARY KEY,
  -- The URL as written in the subscription list; the key the list is synced on.
  subscribed_url    TEXT NOT NULL UNIQUE,
  -- The URL fetched now: differs from subscribed_url after a permanent redirect.
  url               TEXT NOT NULL,
  title             TEXT,            -- the user's title, if any
  feed_title        TEXT,            -- the title the feed document gives
  site_url          TEXT,
  description       TEXT,
  tags              TEXT NOT NULL DEFAULT '[]',   -- JSON array
  cron              TEXT,            -- cron expression overriding the adaptive schedule
  enabled           INTEGER NOT NULL DEFAULT 1,
  subscribed        INTEGER NOT NULL DEFAULT 1,   -- 0 once removed from the list; items are kept
  format            TEXT,
  -- HTTP validators for conditional GET
  etag              TEXT,
  last_modified     TEXT,
  -- publisher hints, kept for the scheduler
  ttl_minutes       INTEGER,
  skip_hours        TEXT NOT NULL DEFAULT '[]',
  skip_days         TEXT NOT NULL DEFAULT '[]',
  update_period     TEXT,
  update_frequency  INTEGER,
  hub               TEXT,
  -- scheduler state
  next_poll_at      TEXT,
  schedule_reason   TEXT,
  retry_after_until TEXT,
  last_poll_at      TEXT,
  last_status       INTEGER,
  last_result       TEXT,            -- ok | not-modified | error
  last_error        TEXT,
  error_count       INTEGER NOT NULL DEFAULT 0,   -- all failed polls
  consecutive_errors INTEGER NOT NULL DEFAULT 0,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL
);

CREATE TABLE polls (
  id            INTEGER PRIMARY KEY,
  feed_id       INTEGER NOT NULL REFERENCES feeds(id),
  started_at    TEXT NOT NULL,
  duration_ms   INTEGER NOT NULL,
  url           TEXT NOT NULL,
  final_url     TEXT,
  status        INTEGER,
  result        TEXT NOT NULL,   -- ok | not-modified | error
  bytes         INTEGER,
  items_seen    INTEGER NOT NULL DEFAULT 0,
  new_items     INTEGER NOT NULL DEFAULT 0,
  changed_items INTEGER NOT NULL DEFAULT 0,
  warnings      TEXT NOT NULL DEFAULT '[]',
  error         TEXT
);
CREATE INDEX polls_feed ON polls(feed_id, started_at);

CREATE TABLE items (
  id            INTEGER PRIMARY KEY,
  feed_id       INTEGER NOT NULL REFERENCES feeds(id),
  guid          TEXT NOT NULL,      -- identity: guid/id, else link, else hash of title + date
  link          TEXT,
  orig_link     TEXT,               -- feedburner:origLink, preferred for the page
  title         TEXT,
  summary       TEXT,
  content       TEXT,
  author        TEXT,
  categories    TEXT NOT NULL DEFAULT '[]',
  enclosures    TEXT NOT NULL DEFAULT '[]',
  published     TEXT,               -- as given by the feed, normalised to UTC
  updated       TEXT,
  first_seen    TEXT NOT NULL,
  last_seen     TEXT NOT NULL,
  changed_at    TEXT,               -- last time updated/title/summary changed
  change_count  INTEGER NOT NULL DEFAULT 0,
  -- page capture state: pending | captured | failed | skipped
  page_state    TEXT NOT NULL DEFAULT 'pending',
  page_attempts INTEGER NOT NULL DEFAULT 0,
  page_error    TEXT,
  page_due_at   TEXT,
  UNIQUE (feed_id, guid)
);
CREATE INDEX items_pending ON items(page_state, page_due_at);

-- Raw bodies, stored once per sha256 of the uncompressed bytes.
CREATE TABLE blobs (
  sha256      TEXT PRIMARY KEY,
  size        INTEGER NOT NULL,
  encoding    TEXT NOT NULL,        -- gzip
  data        BLOB NOT NULL
);

-- One raw capture of a page.
CREATE TABLE snapshots (
  id            INTEGER PRIMARY KEY,
  item_id       INTEGER REFERENCES items(id),
  url           TEXT NOT NULL,      -- the URL requested
  final_url     TEXT NOT NULL,      -- after redirects
  canonical_url TEXT,               -- <link rel=canonical>
  fetched_at    TEXT NOT NULL,
  duration_ms   INTEGER NOT NULL,
  status        INTEGER NOT NULL,
  headers       TEXT NOT NULL,      -- JSON object
  content_type  TEXT,
  sha256        TEXT REFERENCES blobs(sha256)
);
CREATE INDEX snapshots_item ON snapshots(item_id);
CREATE INDEX snapshots_sha ON snapshots(sha256);
