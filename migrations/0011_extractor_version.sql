-- Which version of the extractor made an article's comparison key (src/extract/extract.ts,
-- EXTRACTOR_VERSION). A key made by an older extractor is rebased — its snapshot extracted again
-- by the running one — before a new capture is compared with it: an upgrade of Forest that
-- extracts a field it used to miss (a byline a wrapper lost) is not an edit of every article.
-- Keys made before this migration are version 1.
ALTER TABLE articles ADD COLUMN compare_extractor INTEGER NOT NULL DEFAULT 1;
