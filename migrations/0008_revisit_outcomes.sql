-- What a revisit can find besides an edit (issue #11). checks.result gains two values:
--   gone         the page answered 404 or 410: the article was taken down (not a version);
--   unavailable  the page no longer shows the article: a redirect to the home page or to another
--                article, a canonical URL pointing at the home page, or an object with almost no
--                text where there was an article (paywall, consent wall, error page served with
--                200). The raw capture is kept; no version is made.
-- An article stays marked gone from its first `gone` check until a check finds it again.
ALTER TABLE articles ADD COLUMN gone_since TEXT;
-- "Is the page a revisit was redirected to another archived article?": one lookup per redirect.
CREATE INDEX articles_url ON articles(url);
