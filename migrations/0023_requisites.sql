-- A capture's requisites (issue #67): what its page needed to be seen as its readers saw it —
-- images, stylesheets, fonts, icons, media — each fetched for the capture, its bytes in `blobs`
-- (once per sha256: a site's stylesheet and logo are stored once for all its pages, versions and
-- sites), or the reason it is not kept. Replay serves each at the capture nearest in time.
CREATE TABLE requisites (
  id            INTEGER PRIMARY KEY,
  snapshot_id   INTEGER NOT NULL REFERENCES snapshots(id),
  url           TEXT NOT NULL,
  kind          TEXT NOT NULL,      -- image, style, font, media, icon
  via           TEXT NOT NULL,      -- where the page (or a stylesheet) named it
  fetched_at    TEXT NOT NULL,
  status        INTEGER,            -- the server's answer (null: none came)
  content_type  TEXT,               -- what the bytes are, sniffed
  sha256        TEXT REFERENCES blobs(sha256),
  etag          TEXT,
  last_modified TEXT,
  error         TEXT,               -- why the bytes are not kept (refused, too large, not what it claimed, HTTP 404)
  UNIQUE (snapshot_id, url)
);
CREATE INDEX requisites_url ON requisites(url, fetched_at);
CREATE INDEX requisites_sha ON requisites(sha256);
