-- Why the category tree contradicts itself at a category: the last
-- snapshot named it under two generic or main categories ('' when it did
-- not). Such a category's parents are not understood, and a generic or
-- main eligibility entry cannot rule a record of it out.
ALTER TABLE categories ADD COLUMN contradiction TEXT NOT NULL DEFAULT '';
