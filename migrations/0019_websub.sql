-- WebSub (issue #53; W3C Recommendation "WebSub", 2018). A feed that names a hub (Link header or
-- its document's link rel="hub") is subscribed to through it when websub.callbackUrl is set: one
-- row per feed, with its own callback id (the callback URL is unique per subscription, §5.1) and
-- hub.secret. `forest serve` answers the hub's verification of intent from this row and marks
-- the feed due when a signed push arrives; the daemon subscribes, renews and unsubscribes.
ALTER TABLE feeds ADD COLUMN self_url TEXT;   -- the feed's rel="self": the topic a hub knows it by

CREATE TABLE websub_subscriptions (
  feed_id        INTEGER PRIMARY KEY REFERENCES feeds(id),
  hub            TEXT NOT NULL,
  topic          TEXT NOT NULL,
  callback       TEXT NOT NULL UNIQUE,   -- the random id in the callback's path
  secret         TEXT NOT NULL,          -- hub.secret: pushes are signed with it (X-Hub-Signature)
  state          TEXT NOT NULL,          -- subscribing | active | unsubscribing | denied | failed | dropped
  requested_at   TEXT NOT NULL,
  attempts       INTEGER NOT NULL DEFAULT 0,  -- requests in a row that did not end verified
  retry_at       TEXT,                   -- when a request that failed (or was never verified) is tried again
  verified_at    TEXT,
  lease_until    TEXT,                   -- when the hub's lease ends
  renew_at       TEXT,                   -- when the daemon renews it (before lease_until)
  last_push_at   TEXT,
  pushes         INTEGER NOT NULL DEFAULT 0,
  missed_in_row  INTEGER NOT NULL DEFAULT 0,  -- polls in a row that found items no push announced
  last_error     TEXT
);
