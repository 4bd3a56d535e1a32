-- A version's sanitized HTML and its normalized object (the `blocks` JSON) compressed together
-- (src/archive/packed-content.ts): on bench:scale's pages they were 10.8 KB a version
-- uncompressed, a third of the database, and 2.7 KB packed. A row with `packed` set keeps ''
-- in `html` and `blocks`; rows stored before this migration keep theirs as they were. The
-- text stays as it is: the full-text index reads it through `version_documents`.
ALTER TABLE contents ADD COLUMN packed BLOB;
