-- A change of extraction method is not an edit (issue #68, 2): when an article's comparison key is
-- rebased onto a new method, its versions made the old way are re-extracted the new way, so that
-- every reader (diff, search, history, API, exports) compares like with like. How each was first
-- made stays: its first method and object hash (the object stays in `contents`), and when it was
-- made again.
ALTER TABLE versions ADD COLUMN first_method TEXT;
ALTER TABLE versions ADD COLUMN first_hash TEXT;
ALTER TABLE versions ADD COLUMN reextracted_at TEXT;

-- A re-extracted version's search entry follows its new object: external-content FTS5 is told
-- what it indexed for the old one (still in `contents`), then indexes the new.
CREATE TRIGGER versions_search_on_rehash AFTER UPDATE OF hash ON versions BEGIN
  INSERT INTO version_search (version_search, rowid, title, text)
    SELECT 'delete', old.id, COALESCE(contents.title, ''), contents.text FROM contents WHERE contents.hash = old.hash;
  INSERT INTO version_search (rowid, title, text) SELECT new.id, COALESCE(contents.title, ''), contents.text FROM contents WHERE contents.hash = new.hash;
END;
