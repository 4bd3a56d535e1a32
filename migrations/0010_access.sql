-- Reading the archive from the web (src/web): the change feed walks edits newest first, and
-- Memento resolves an original URL by an article's final URL as well as by its item link and
-- canonical URL (both indexed already).
CREATE INDEX versions_edits ON versions(captured_at) WHERE n > 1;
CREATE INDEX articles_final_url ON articles(final_url);
