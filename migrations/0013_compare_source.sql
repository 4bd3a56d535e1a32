-- What an article's comparison key was made from (src/extract/extract.ts, objectSource): a digest
-- of the article's region before sanitizing, its title, byline, date, lead image and deck. A
-- revisit whose extraction has the same source has the key's object, and is neither sanitized nor
-- normalized again. Set with every new key, and by a check that found the key's object; null
-- (keys made before this migration) until then.
ALTER TABLE articles ADD COLUMN compare_source TEXT;
