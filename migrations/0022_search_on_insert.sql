-- A version is indexed for search as it is stored, by the schema (as PostgreSQL's generated
-- tsvector column does): the rule that stores a version is written once for both engines
-- (src/archive/rules/articles.ts) and says nothing about either engine's index.
CREATE TRIGGER versions_search_on_insert AFTER INSERT ON versions BEGIN
  INSERT INTO version_search (rowid, title, text) SELECT new.id, COALESCE(contents.title, ''), contents.text FROM contents WHERE contents.hash = new.hash;
END;
