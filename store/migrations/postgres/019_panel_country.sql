-- The panel by country (migrations/sqlite/019_panel_country.sql): a send
-- list reads only the panel rows of its subsample's countries
-- (Store.ScanPanelistsIn). panelist_id keeps its column's byte order
-- (COLLATE "C").
CREATE INDEX panel_country ON panel (country, panelist_id) INCLUDE (locale);
