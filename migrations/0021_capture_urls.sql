-- A capture is filed under what Forest fetched (issue #65): the URL it requested and the one its
-- redirects ended at, each looked up by index. A page's canonical link is only its claim.
CREATE INDEX snapshots_url ON snapshots (url);
CREATE INDEX snapshots_final_url ON snapshots (final_url);
