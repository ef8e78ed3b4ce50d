-- subsample.at_risk in the change feed: what the last events refresh found
-- of each live subsample's pace (rules.Pace on its total quota), the
-- sentence saying why it is at risk, '' when it is not.
ALTER TABLE subsample_states ADD COLUMN at_risk TEXT NOT NULL DEFAULT '';
