-- A Territory whose income is for one alignment only (rules.models.Territory.income_only_for,
-- e.g. the Rogue Doc Shop pays Outlaws): NULL pays every gang, as before this column.
ALTER TABLE territories ADD COLUMN income_only_for TEXT;
