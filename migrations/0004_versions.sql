-- The object-level archive: articles (one per feed item), their versions (a new one only when
-- the normalized object changed), every check of the page between them, and full-text search.

-- Version content, stored once per object hash: an article that reverts to an earlier text, or
-- the same article in two feeds, shares the row.
CREATE TABLE contents (
  hash       TEXT PRIMARY KEY,         -- sha256 of the normalized object (see src/archive/normalize.ts)
  title      TEXT,
  byline     TEXT,
  published  TEXT,
  text       TEXT NOT NULL,            -- as extracted: blocks separated by line breaks
  html       TEXT NOT NULL,            -- sanitized HTML as extracted
  blocks     TEXT NOT NULL             -- JSON: the normalized object the hash covers
);

-- An extraction whose object is stored in `contents` points there instead of keeping its own
-- copy: an unchanged revisit then costs a row, not the article's text again.
ALTER TABLE extractions ADD COLUMN content_hash TEXT REFERENCES contents(hash);

CREATE TABLE articles (
  id              INTEGER PRIMARY KEY,
  item_id         INTEGER NOT NULL UNIQUE REFERENCES items(id),
  feed_id         INTEGER NOT NULL REFERENCES feeds(id),
  url             TEXT NOT NULL,       -- the page URL requested (the item's link)
  final_url       TEXT,
  canonical_url   TEXT,                -- links the same article across feeds
  title           TEXT,                -- of the latest version
  versions        INTEGER NOT NULL DEFAULT 0,
  first_captured  TEXT NOT NULL,
  last_checked    TEXT,
  -- revisits: the index into revisit.after of the next delay, and when the next check is due
  -- (NULL while a fetched page waits for extraction, and once the schedule has run out)
  revisit_step    INTEGER NOT NULL DEFAULT 0,
  next_check_at   TEXT,
  -- HTTP validators of the last 200 response, for conditional GET on revisits
  etag            TEXT,
  last_modified   TEXT
);
CREATE INDEX articles_due ON articles(next_check_at);
CREATE INDEX articles_canonical ON articles(canonical_url);
CREATE INDEX articles_feed ON articles(feed_id, first_captured);

CREATE TABLE versions (
  id           INTEGER PRIMARY KEY,
  article_id   INTEGER NOT NULL REFERENCES articles(id),
  n            INTEGER NOT NULL,       -- 1, 2, … per article
  snapshot_id  INTEGER NOT NULL REFERENCES snapshots(id),
  captured_at  TEXT NOT NULL,
  method       TEXT NOT NULL,          -- forest | sigfeed | fallback
  wrapper_id   INTEGER REFERENCES wrappers(id),
  hash         TEXT NOT NULL REFERENCES contents(hash),
  change       TEXT NOT NULL DEFAULT '[]',  -- JSON array of change kinds (empty for version 1)
  summary      TEXT,                   -- the change in words
  diff         TEXT,                   -- JSON: the structured diff from version n - 1
  UNIQUE (article_id, n)
);

-- Every look at an article's page after (and including) its first capture.
CREATE TABLE checks (
  id           INTEGER PRIMARY KEY,
  article_id   INTEGER NOT NULL REFERENCES articles(id),
  at           TEXT NOT NULL,
  status       INTEGER,                -- HTTP status; NULL when the request failed
  result       TEXT NOT NULL,          -- unchanged | changed | failed
  snapshot_id  INTEGER REFERENCES snapshots(id),
  version_n    INTEGER,                -- the version current after this check
  reason       TEXT                    -- why: a 304, extraction changed method, the error, …
);
CREATE INDEX checks_article ON checks(article_id, at);
-- A snapshot is checked at most once: a restart never records it twice.
CREATE UNIQUE INDEX checks_snapshot ON checks(snapshot_id) WHERE snapshot_id IS NOT NULL;

-- Full-text search over the title and text of every version; the text itself lives in
-- `contents` (external-content FTS5), so it is stored once.
CREATE VIEW version_documents AS
  SELECT versions.id AS id, contents.title AS title, contents.text AS text
  FROM versions JOIN contents ON contents.hash = versions.hash;
CREATE VIRTUAL TABLE version_search USING fts5(
  title, text, content = 'version_documents', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);
