-- Article extraction: page templates per feed (clustered by structure), FOREST wrappers with
-- their history, and the article object extracted from every snapshot.

CREATE TABLE templates (
  id          INTEGER PRIMARY KEY,
  feed_id     INTEGER NOT NULL REFERENCES feeds(id),
  signature   TEXT NOT NULL,           -- JSON: the structural signature of its first page
  created_at  TEXT NOT NULL
);
CREATE INDEX templates_feed ON templates(feed_id);

CREATE TABLE wrappers (
  id          INTEGER PRIMARY KEY,
  feed_id     INTEGER NOT NULL REFERENCES feeds(id),
  template_id INTEGER NOT NULL REFERENCES templates(id),
  selector    TEXT NOT NULL,           -- JSON: the structured selector matched on the parsed tree
  xpath       TEXT NOT NULL,           -- the same, for people
  relevance   REAL NOT NULL,
  samples     INTEGER NOT NULL,
  learned_at  TEXT NOT NULL,
  active      INTEGER NOT NULL DEFAULT 1,
  reason      TEXT NOT NULL            -- why it was (re)learned
);
CREATE INDEX wrappers_template ON wrappers(template_id, active);

CREATE TABLE extractions (
  snapshot_id  INTEGER PRIMARY KEY REFERENCES snapshots(id),
  item_id      INTEGER REFERENCES items(id),
  template_id  INTEGER REFERENCES templates(id),
  wrapper_id   INTEGER REFERENCES wrappers(id),
  method       TEXT NOT NULL,          -- forest | sigfeed | fallback | none
  title        TEXT,
  byline       TEXT,
  published    TEXT,
  modified     TEXT,
  text         TEXT NOT NULL,
  html         TEXT NOT NULL,
  lead_image   TEXT,
  language     TEXT,
  reason       TEXT,                   -- why nothing was extracted
  extracted_at TEXT NOT NULL
);
CREATE INDEX extractions_template ON extractions(template_id);
