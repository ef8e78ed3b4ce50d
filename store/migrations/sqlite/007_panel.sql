-- The supplier's panel: where each panelist belongs, imported from the
-- supplier's own files (panelistId,country,locale). A panelist is only
-- sent to subsamples of their country and, when their locale is known, of
-- their language. One row per panelist: a later import, or a later line of
-- the same file, replaces the panelist's country and locale.
--
-- * WITHOUT ROWID, keyed by panelist_id, as profiles is: one panelist is one
--   lookup, and a range of the key (a chunk of a send list's scan of the
--   profiles) is one contiguous read in the same order.
-- * country is the ISO 3166-1 alpha-2 code in upper case ("FR"); locale
--   the provider's language-country form in lower case ("fr-ca"), of the
--   same country, or '' when not known.
CREATE TABLE panel (
    panelist_id TEXT PRIMARY KEY,
    country     TEXT NOT NULL,
    locale      TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
