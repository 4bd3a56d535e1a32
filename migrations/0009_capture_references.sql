-- Captures compressed against a reference capture of their site (src/archive/codec.ts): a body
-- stored as zstd-dict names the body it was compressed against, and each host names its current
-- reference. A reference is stored alone, so decoding needs at most one other body, and a body
-- that is a reference is kept as long as anything refers to it.
ALTER TABLE blobs ADD COLUMN reference TEXT REFERENCES blobs(sha256);
CREATE INDEX blobs_reference ON blobs(reference) WHERE reference IS NOT NULL;
CREATE TABLE capture_references (
  host    TEXT PRIMARY KEY,               -- host[:port] of the pages' final URL
  sha256  TEXT NOT NULL REFERENCES blobs(sha256)
);
CREATE INDEX capture_references_sha ON capture_references(sha256);
