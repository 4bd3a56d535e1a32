-- Several daemons on one archive (issue #51). Each `forest run` registers in `daemons` and beats
-- its heartbeat there (the SQLite archive's single `leases` row, for any number of daemons);
-- each unit of work it does — a poll, a capture, a revisit, an extraction, a learning — is
-- claimed in `claims` first (owner, expiry, and a fencing token that grows with every new owner),
-- and each host it requests from in `hosts` (one daemon's request at a time, perHostDelay apart).
-- A daemon's heartbeat extends its claims; a daemon that dies stops extending them, and once
-- they expire another daemon takes them over. A write of claimed work checks the token in its
-- transaction: a daemon whose claim was taken over never commits over the new owner's work.
CREATE TABLE daemons (
  owner        text PRIMARY KEY,        -- a random id per process
  pid          integer NOT NULL,
  host         text NOT NULL,
  started_at   text NOT NULL,
  heartbeat_at text NOT NULL,
  status       text                     -- its last report (JSON), as the lease's
);

CREATE TABLE claims (
  kind       text NOT NULL,             -- poll | capture | revisit | extract | learn
  id         bigint NOT NULL,           -- the feed, item, article, snapshot or template
  owner      text NOT NULL,
  token      bigint NOT NULL,           -- fencing: 1 for the first owner, +1 for each taker-over
  expires_at text NOT NULL,
  PRIMARY KEY (kind, id)
);
CREATE INDEX claims_owner ON claims (owner);

CREATE TABLE hosts (
  host       text PRIMARY KEY,          -- host[:port] of the URL requested
  owner      text,                      -- the daemon with a request in flight to it, if any
  expires_at text,
  next_at    text NOT NULL              -- no request before this (perHostDelay after the last)
);
