-- The total quotas among all quotas: the pacing a refresh reads before
-- each snapshot write (Store.TotalQuotaTracks) walks these few entries,
-- one a live subsample, rather than every quota. Its condition is
-- totalQuotaCondition's (store/live.go), term by term, so the query
-- that states it can use it; SQLite builds it from the rows already
-- stored.
CREATE INDEX quotas_total ON quotas (subsample_id, quota_id)
    WHERE lower(quota_type) = 'counting' AND lower(trim(table_name)) = 'total quota' AND questions IN ('[]', 'null');
