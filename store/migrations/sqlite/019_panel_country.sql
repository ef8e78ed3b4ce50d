-- The panel by country: a send list reads only the panel rows of its
-- subsample's countries (Store.ScanPanelistsIn), in panelist id order, a
-- range of this index per country. The locale rides along, so that the
-- range answers without a lookup of each row in the table.
CREATE INDEX panel_country ON panel (country, panelist_id, locale);
