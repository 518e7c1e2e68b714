-- What another process needs to run a queued run (a dev.knotless.runner.queue.RunOrder as JSON),
-- written when the reconciler only queues runs and the scheduler runs them as pods. Null for a run
-- the reconciler's own worker holds.
alter table run_queue add column run_order text;
create index run_queue_waiting_orders on run_queue (created_seq) where run_order is not null;
