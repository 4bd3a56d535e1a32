-- The capture queue in the order items appeared: the date their feed gives them, never later than
-- when Forest first saw them (a date in the future is not believed), else when first seen. By
-- first sight alone, a subscription's first polls put the backlog of every feed polled after a
-- busy one before the busy feed's new items (bench:scale: hot items seen at the first poll waited
-- up to three minutes behind their hosts' backlog pages). Dates are ISO-8601 in UTC, as
-- first_seen is (feeds/dates.ts normalizes them), so that the smaller string is the earlier time.
DROP INDEX items_capture;
CREATE INDEX items_capture ON items(min(coalesce(published, first_seen), first_seen) DESC, id DESC) WHERE page_state = 'pending';
