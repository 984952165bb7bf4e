-- Which replica runs an execution: the key of the session advisory lock that replica holds while it
-- lives. A replica that dies (SIGKILL, node lost) drops its connections, so its lock is released and
-- the first surviving replica to look claims its executing rows (reconciling = TRUE) and settles
-- them from the cluster.
ALTER TABLE executions ADD COLUMN owner_key INTEGER;
ALTER TABLE executions ADD COLUMN reconciling BOOLEAN NOT NULL DEFAULT FALSE;
