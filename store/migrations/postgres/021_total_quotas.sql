-- The total quotas among all quotas, for the pacing read before each
-- snapshot write (migrations/sqlite/021_total_quotas.sql).
CREATE INDEX quotas_total ON quotas (subsample_id, quota_id)
    WHERE lower(quota_type) = 'counting' AND lower(trim(table_name)) = 'total quota' AND questions IN ('[]', 'null');
