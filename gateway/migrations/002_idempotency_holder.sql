-- Who holds an in-flight claim (docs/IDEMPOTENCY.md, "Crashes"): the host, the process's pid
-- namespace and pid, and a random id of the process's life. A claim whose holder is known dead — no
-- process with that pid in the same pid namespace on the same host, or the same pid in a later life —
-- is taken over at once instead of after its lease. NULL on rows written before this migration: those
-- wait for their lease, as before.
ALTER TABLE edge.idempotency_records
  ADD COLUMN holder_host     text,
  ADD COLUMN holder_pid_ns   text,
  ADD COLUMN holder_pid      integer,
  ADD COLUMN holder_instance text;
