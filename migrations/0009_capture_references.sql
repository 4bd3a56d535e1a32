-- Captures compressed against their feed's reference capture (src/archive/codec.ts): a body
-- stored as zstd-dict names the body it was compressed against; each feed names its current
-- reference. A reference is stored alone, so decoding needs at most one other body, and a body
-- that is a reference is kept as long as anything refers to it.
ALTER TABLE blobs ADD COLUMN reference TEXT REFERENCES blobs(sha256);
CREATE INDEX blobs_reference ON blobs(reference) WHERE reference IS NOT NULL;
ALTER TABLE feeds ADD COLUMN capture_reference TEXT REFERENCES blobs(sha256);
CREATE INDEX feeds_capture_reference ON feeds(capture_reference) WHERE capture_reference IS NOT NULL;
