-- The supplier's panelist profiles: each panelist's answers to the
-- provider's question library, imported from the supplier's own files, for
-- quota matching. Sized for millions of panelists with about ten answers
-- each, and read mostly by a scan of every panelist (a send list), so it
-- holds one row per panelist, not one per answer: a scan of 1,000,000
-- rows is ten times quicker than of 10,000,000, and the file is a quarter
-- of the size.
--
-- * WITHOUT ROWID, keyed by panelist_id: one panelist's profile is one
--   lookup, and a scan in key order streams the panelists in id order.
-- * answers packs the profile (see store/profiles_codec.go): for each
--   question, ascending by id, the age question (-1) first:
--     varint   the question id minus the previous one's (the first: the id)
--     uvarint  n << 1 | fresh: n answers; fresh is 1 when the row's import
--              wrote them, 0 when they were kept from an earlier import
--     n uvarints  the answer ids, ascending, each minus the previous one
--              (the first as is); for the age question a single value, the
--              birth date as the integer yyyymmdd (19850317)
-- * import_id is the import that last wrote the row (profile_imports). An
--   import replaces a panelist's answers to a question it gives, unless
--   the row and the question are fresh from this very import, in which
--   case the file's answers add up (a multi-punch question over several
--   lines, wherever they are in the file).
CREATE TABLE profiles (
    panelist_id TEXT PRIMARY KEY,
    import_id   INTEGER NOT NULL,
    answers     BLOB NOT NULL
) WITHOUT ROWID;

-- Every profile import that was written (a rejected file leaves no row).
CREATE TABLE profile_imports (
    import_id   INTEGER PRIMARY KEY,
    imported_at DATETIME NOT NULL,
    records     INTEGER NOT NULL
);
