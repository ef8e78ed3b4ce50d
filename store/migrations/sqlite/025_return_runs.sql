-- A subsample's returns, newest first: its run without a complete
-- (store.ReturnRun), one range of this index however many sends it had.
CREATE INDEX routing_decisions_returns ON routing_decisions (chosen_subsample, returned_at) WHERE returned_at IS NOT NULL;
