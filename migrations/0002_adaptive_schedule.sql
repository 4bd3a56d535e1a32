-- The adaptive scheduler's memory of each feed (JSON: arrival estimates, weekly profile, poll
-- outcomes, learned window), and what status shows of its latest decision.
ALTER TABLE feeds ADD COLUMN schedule_state TEXT;
ALTER TABLE feeds ADD COLUMN rate_per_hour REAL;
ALTER TABLE feeds ADD COLUMN window_size INTEGER;
-- Cache-Control max-age / Expires of the last feed response, a floor on the interval.
ALTER TABLE feeds ADD COLUMN max_age_seconds INTEGER;
