-- Real fighters: what a roster file, a pasted profile or a campaign's rule data gives,
-- and nothing made up (rules.models.Profile, docs/rule-data.md).
--
-- The twelve characteristic columns of 0001 are NOT NULL, and SQLite cannot relax
-- that without rebuilding the fighters table, whose rows the items cascade from.
-- So two columns say what the twelve mean: profile_set = 0 is "profile not set"
-- (the twelve hold 0 and are not read); absent_stats lists, as JSON, the
-- characteristics the fighter does not have ("-" on its card; their column holds 0).
ALTER TABLE fighters ADD COLUMN profile_set INTEGER NOT NULL DEFAULT 1
    CHECK (profile_set IN (0, 1));
ALTER TABLE fighters ADD COLUMN absent_stats TEXT NOT NULL DEFAULT '[]';
-- Notes a player or a roster file keeps on a fighter or a gang.
ALTER TABLE fighters ADD COLUMN notes TEXT NOT NULL DEFAULT '';
ALTER TABLE gangs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
-- A weapon's profile lines (rules.models.WeaponProfile), as JSON.
ALTER TABLE items ADD COLUMN profiles TEXT NOT NULL DEFAULT '[]';
-- The campaign's own rule data (rules.ruledata.RuleData as JSON); NULL: none.
ALTER TABLE campaigns ADD COLUMN rule_data TEXT;

-- Before this version every fighter added without a profile was given
-- M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+. Which of them a player
-- really gave that line cannot be told, and a made-up profile is worse than
-- none: each fighter holding exactly that line now shows "profile not set"
-- until its player pastes the profile again.
UPDATE fighters SET profile_set = 0
WHERE m = 5 AND ws = 4 AND bs = 4 AND s = 3 AND t = 3 AND w = 1 AND i = 4 AND a = 1
    AND ld = 7 AND cl = 7 AND wil = 7 AND int_ = 7;
