-- Schema version 3: a campaign's own Trading Post, and what imports need
-- (docs/importing.md).

-- NULL: the campaign plays with its rule set's Trading Post. Otherwise the
-- JSON list of records.TradingPostEntry that replaces that table whole
-- (rules.data: "a table is replaced whole, never merged entry by entry").
ALTER TABLE campaigns ADD COLUMN trading_post TEXT;

-- Gangs brought in from elsewhere (a Yaktribe export, a gang file of this
-- bot): importing the same source again updates the same gang instead of
-- founding a second one. fighter_ids is the JSON map from the source's own
-- fighter keys (Yaktribe's ganger_id) to fighter ids here, so a re-import
-- keeps every fighter's id and so its ledger history. No foreign key to the
-- gang: a link to a deleted gang is simply ignored and replaced.
CREATE TABLE gang_imports (
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    source TEXT NOT NULL,
    external_id TEXT NOT NULL,
    gang_id TEXT NOT NULL,
    fighter_ids TEXT NOT NULL DEFAULT '{}',
    imported_at TEXT NOT NULL,
    PRIMARY KEY (campaign_pk, source, external_id)
) WITHOUT ROWID;

-- An import shown to its player and waiting for the Confirm button: the JSON
-- of what will be stored. Kept here rather than in memory so the button still
-- works after a restart; rows older than a day are swept when a new one is
-- staged, and the Confirm takes (deletes) its row in the transaction that
-- stores the gang.
CREATE TABLE staged_imports (
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    token TEXT NOT NULL,
    user_id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (campaign_pk, token)
) WITHOUT ROWID;
