-- Checks in a row that got no answer (issue #68): such a check does not spend its revisit step
-- but is retried, backing off (schedule/revisit.ts retryCheck); 0 after any answer.
ALTER TABLE articles ADD COLUMN failed_checks integer NOT NULL DEFAULT 0;
