-- A daemon alone on its archive keeps its hosts' politeness in its own host queues, as on SQLite,
-- and writes nothing to `hosts` per request (issue #70, item 2: two statements a request, a page's
-- requisites included, were what held one PostgreSQL daemon below one SQLite daemon). Its row says
-- so; a daemon that joins waits until every live daemon gates its hosts again, which one alone
-- does at its next heartbeat, after writing in `hosts` the rests its last requests left
-- (archive/postgres/host-gate.ts). A daemon of an older version never goes alone: the default.
ALTER TABLE daemons ADD COLUMN gates_hosts boolean NOT NULL DEFAULT true;
