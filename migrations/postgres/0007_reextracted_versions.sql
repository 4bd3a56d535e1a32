-- A change of extraction method is not an edit (issue #68, 2): when an article's comparison key is
-- rebased onto a new method, its versions made the old way are re-extracted the new way, so that
-- every reader (diff, search, history, API, exports) compares like with like. How each was first
-- made stays: its first method and object hash (the object stays in `contents`), and when it was
-- made again.
ALTER TABLE versions ADD COLUMN first_method text;
ALTER TABLE versions ADD COLUMN first_hash text;
ALTER TABLE versions ADD COLUMN reextracted_at text;
