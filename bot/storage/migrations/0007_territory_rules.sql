-- What the rule data says a Territory's income and Boons do, stored beside it
-- (rules.models.Territory): NULL / 0 / '[]' behave as before these columns.
-- income_only_for: only gangs of this alignment collect its income (the Rogue Doc Shop).
-- income_max_dice: the controller may roll up to this many dice (the Collapsed Dome).
-- income_double_injures: a double on the income roll pays nothing and injures a fighter.
-- boon_effects: the Boons the bot applies, as JSON (rules.models.TerritoryBoon).
ALTER TABLE territories ADD COLUMN income_only_for TEXT;
ALTER TABLE territories ADD COLUMN income_max_dice INTEGER;
ALTER TABLE territories ADD COLUMN income_double_injures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE territories ADD COLUMN boon_effects TEXT NOT NULL DEFAULT '[]';
