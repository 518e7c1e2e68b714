-- Which worker holds a queued run, and when it last said it is alive. A row whose heartbeat is
-- stale belongs to a worker that died: another worker files it again through the repository's
-- dropped runs. subject and base_commit are what that needs besides the commit and workflow.
alter table run_queue add column worker text;
alter table run_queue add column heartbeat_at timestamp with time zone;
alter table run_queue add column subject text;
alter table run_queue add column base_commit text;
create index run_queue_worker on run_queue (worker);
create index run_queue_heartbeat on run_queue (heartbeat_at);
