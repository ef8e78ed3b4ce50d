-- A subsample's returns, newest first: its run without a complete
-- (store.ReturnRun), a range of these indexes however many sends it had.
CREATE INDEX routing_decisions_returns ON routing_decisions (chosen_subsample, returned_at) WHERE returned_at IS NOT NULL;
-- A subsample's last complete returned: where its run begins.
CREATE INDEX routing_decisions_returned_as ON routing_decisions (chosen_subsample, return_status, returned_at) WHERE returned_at IS NOT NULL;
