-- The W3C traceparent of the span that queued a run, when tracing is on: the scheduler continues
-- that trace when it takes the row. Null when tracing is off or the run was queued before it.
alter table run_queue add column trace_parent text;
