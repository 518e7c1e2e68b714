-- Every run put in the queue, kept after its row leaves: the check-writer files the events of a
-- check only when its key names a run issued here, with the same repository, commit and workflow.
-- A trigger fills it, so every path that queues a run (a worker's claim, a queue-only reconciler's
-- order) issues it in the same statement; a run that never takes a queue row is issued directly.
create table run_issued (
  check_key text primary key,
  repo text not null,
  commit_id text not null,
  workflow text not null,
  issued_at timestamp with time zone not null default now()
);
create index run_issued_at on run_issued (issued_at);

insert into run_issued (check_key, repo, commit_id, workflow)
  select check_key, repo, commit_id, workflow from run_queue;

create function run_queue_issue() returns trigger language plpgsql as $$
begin
  insert into run_issued (check_key, repo, commit_id, workflow, issued_at)
    values (new.check_key, new.repo, new.commit_id, new.workflow, now())
    on conflict (check_key) do update set repo = excluded.repo, commit_id = excluded.commit_id,
      workflow = excluded.workflow, issued_at = excluded.issued_at;
  return new;
end;
$$;

create trigger run_queue_issue after insert on run_queue
  for each row execute function run_queue_issue();

-- The check-writer's running checks, shared by its replicas: the run's filed event, the other
-- events applied (JSON lines, in order), how far the log goes, and whether the check was filed as
-- ended (the row stays then, so a late replay cannot file the check again).
create table check_run (
  check_key text primary key,
  filed text not null,
  events text not null default '',
  log_length bigint not null default 0,
  done boolean not null default false,
  updated_at timestamp with time zone not null default now()
);
create index check_run_updated on check_run (updated_at);

-- A running check's log, as the pieces that extended it, by byte offset.
create table check_log (
  check_key text not null references check_run (check_key) on delete cascade,
  log_offset bigint not null,
  data bytea not null,
  primary key (check_key, log_offset)
);
