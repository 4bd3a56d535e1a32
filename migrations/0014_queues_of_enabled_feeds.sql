-- A disabled or unsubscribed feed's work leaves the queues. Its pending pages and due revisits
-- never become work while it is disabled, but the queue indexes held them: every scheduler pass
-- read them again (the queries filtered them out by joining feeds), for as long as the archive
-- lived — work that grew with history, not with what is due. Each item and article now carries
-- its feed's `enabled`, kept by triggers, and the queue indexes hold only enabled feeds' rows.
ALTER TABLE items ADD COLUMN feed_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE articles ADD COLUMN feed_enabled INTEGER NOT NULL DEFAULT 1;
UPDATE items SET feed_enabled = 0 WHERE feed_id IN (SELECT id FROM feeds WHERE enabled = 0);
UPDATE articles SET feed_enabled = 0 WHERE feed_id IN (SELECT id FROM feeds WHERE enabled = 0);

-- A page waiting out a retry delay (capture.retryDelay) is not in the walk of new pages either,
-- which every pass would otherwise read past until its time came: retries are searched by when
-- they fall due. A page never tried is due from when it was first seen.
UPDATE items SET page_due_at = first_seen WHERE page_state = 'pending' AND page_due_at IS NULL;
DROP INDEX items_capture;
CREATE INDEX items_capture ON items(min(coalesce(published, first_seen), first_seen) DESC, id DESC) WHERE page_state = 'pending' AND feed_enabled = 1 AND page_attempts = 0;
CREATE INDEX items_retry ON items(page_due_at) WHERE page_state = 'pending' AND feed_enabled = 1 AND page_attempts > 0;
DROP INDEX items_pending;
DROP INDEX articles_due;
CREATE INDEX articles_due ON articles(next_check_at) WHERE next_check_at IS NOT NULL AND feed_enabled = 1;

CREATE TRIGGER feeds_enabled_queues AFTER UPDATE OF enabled ON feeds WHEN old.enabled IS NOT new.enabled
BEGIN
  UPDATE items SET feed_enabled = new.enabled WHERE feed_id = new.id;
  UPDATE articles SET feed_enabled = new.enabled WHERE feed_id = new.id;
END;
-- Rows written for a feed just disabled (a poll or capture in flight when it was).
CREATE TRIGGER items_of_disabled_feed AFTER INSERT ON items WHEN (SELECT enabled FROM feeds WHERE id = new.feed_id) = 0
BEGIN
  UPDATE items SET feed_enabled = 0 WHERE id = new.id;
END;
CREATE TRIGGER articles_of_disabled_feed AFTER INSERT ON articles WHEN (SELECT enabled FROM feeds WHERE id = new.feed_id) = 0
BEGIN
  UPDATE articles SET feed_enabled = 0 WHERE id = new.id;
END;
