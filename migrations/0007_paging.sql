-- The newest articles first, a page at a time (`forest articles --limit/--offset`): an index
-- walk instead of sorting every article for each page.
CREATE INDEX articles_first_captured ON articles(first_captured, id);
