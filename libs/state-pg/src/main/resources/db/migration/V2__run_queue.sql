-- The run queue: runs filed and waiting for a job, or running. The order of created_seq is the
-- order runs were started (filed), which ranks runs within a class.
create sequence run_queue_seq start with 1 increment by 50;

create table run_queue (
  id bigint primary key,
  check_key text not null unique,
  repo text not null,
  owner_did text not null,
  run_class text not null check (run_class in ('MAIN', 'OTHER', 'LATER', 'ASKED')),
  state text not null check (state in ('WAITING', 'RUNNING')),
  workflow text not null,
  commit_id text not null,
  created_seq bigint not null,
  created_at timestamp with time zone not null,
  started_at timestamp with time zone
);

create sequence run_queue_order start with 1 increment by 1;
create index run_queue_waiting on run_queue (state, run_class, created_seq);
