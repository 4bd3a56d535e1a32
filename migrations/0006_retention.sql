-- Retention of operational logs: polls, and checks that found nothing new, older than the
-- configured ages are summarised per day and dropped. Captures and versions are never dropped
-- (nor the checks that made a version, nor a check whose capture is kept in full).
CREATE TABLE poll_days (
  feed_id      INTEGER NOT NULL REFERENCES feeds(id),
  day          TEXT NOT NULL,            -- YYYY-MM-DD (UTC)
  polls        INTEGER NOT NULL,
  ok           INTEGER NOT NULL,
  not_modified INTEGER NOT NULL,
  errors       INTEGER NOT NULL,
  new_items    INTEGER NOT NULL,
  PRIMARY KEY (feed_id, day)
);

CREATE TABLE check_days (
  article_id INTEGER NOT NULL REFERENCES articles(id),
  day        TEXT NOT NULL,
  unchanged  INTEGER NOT NULL,
  failed     INTEGER NOT NULL,
  PRIMARY KEY (article_id, day)
);

-- Old rows are found by time.
CREATE INDEX polls_started ON polls(started_at);
CREATE INDEX checks_at ON checks(at) WHERE result <> 'changed';
