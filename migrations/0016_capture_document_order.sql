-- Pages of items with one date are taken in the feed's document order (issue #52): the document
-- lists newest first, and items are stored in that order, so among equal dates the lower id is
-- the one the feed put first. The walk was id DESC: last in the document first.
DROP INDEX items_capture;
CREATE INDEX items_capture ON items(min(coalesce(published, first_seen), first_seen) DESC, id ASC) WHERE page_state = 'pending' AND feed_enabled = 1 AND page_attempts = 0;
