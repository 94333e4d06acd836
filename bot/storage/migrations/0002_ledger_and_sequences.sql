-- Schema version 2: the ledger (actions with their undo snapshots, and one
-- event per roll, change and note) and the state of sequences in progress.

-- One row per applied action (one rules result, one roster edit or one undo).
-- snapshot holds the affected gangs and territories as they were BEFORE the
-- action: the JSON of records.Snapshot, zlib-compressed because whole gangs
-- are stored for every action and are read back only by an undo. An undo is a
-- new action whose undoes_pk names the action it reverted, so nothing here
-- is ever updated.
CREATE TABLE actions (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    clause TEXT NOT NULL,
    title TEXT NOT NULL,
    battle_id TEXT,
    step TEXT,
    notes TEXT NOT NULL,
    snapshot BLOB NOT NULL,
    undoes_pk INTEGER REFERENCES actions (pk) ON DELETE CASCADE
);
CREATE INDEX actions_campaign ON actions (campaign_pk);
-- An action is undone at most once.
CREATE UNIQUE INDEX actions_undoes ON actions (undoes_pk) WHERE undoes_pk IS NOT NULL;

-- Gangs an action touched: lets a player's "what happened to my gang" find
-- the rolls of those actions, which name no gang themselves.
CREATE TABLE action_gangs (
    action_pk INTEGER NOT NULL REFERENCES actions (pk) ON DELETE CASCADE,
    gang_id TEXT NOT NULL,
    PRIMARY KEY (action_pk, gang_id)
) WITHOUT ROWID;
CREATE INDEX action_gangs_gang ON action_gangs (gang_id, action_pk);

-- Sequence states an action replaced (saved in the same transaction), so an
-- undo puts the sequence back on the step it was on. state_before NULL: the
-- sequence did not exist before.
CREATE TABLE action_sequences (
    action_pk INTEGER NOT NULL REFERENCES actions (pk) ON DELETE CASCADE,
    key TEXT NOT NULL,
    model TEXT,
    battle_id TEXT,
    state_before TEXT,
    PRIMARY KEY (action_pk, key)
) WITHOUT ROWID;

CREATE TABLE ledger_events (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    -- NULL for events imported from another server (their actions stay behind).
    action_pk INTEGER REFERENCES actions (pk) ON DELETE CASCADE,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('roll', 'change', 'note', 'undo')),
    clause TEXT NOT NULL,
    battle_id TEXT,
    step TEXT,
    -- Rolls.
    expression TEXT,
    faces TEXT,
    total INTEGER,
    purpose TEXT,
    -- Changes.
    subject TEXT,
    subject_id TEXT,
    subject_name TEXT,
    gang_id TEXT,
    path TEXT,
    before TEXT,
    after TEXT,
    -- Notes and undo descriptions.
    text TEXT
);
CREATE INDEX ledger_campaign ON ledger_events (campaign_pk);
CREATE INDEX ledger_gang ON ledger_events (campaign_pk, gang_id) WHERE gang_id IS NOT NULL;
CREATE INDEX ledger_battle ON ledger_events (campaign_pk, battle_id) WHERE battle_id IS NOT NULL;
CREATE INDEX ledger_action ON ledger_events (action_pk) WHERE action_pk IS NOT NULL;

-- Append-only: rows may only go when their whole campaign is deleted (the
-- cascade runs after the campaign row is gone, which the WHEN tests).
CREATE TRIGGER ledger_events_no_update BEFORE UPDATE ON ledger_events
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only');
END;
CREATE TRIGGER ledger_events_no_delete BEFORE DELETE ON ledger_events
WHEN EXISTS (SELECT 1 FROM campaigns WHERE pk = OLD.campaign_pk)
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only');
END;
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only');
END;
CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
WHEN EXISTS (SELECT 1 FROM campaigns WHERE pk = OLD.campaign_pk)
BEGIN
    SELECT RAISE(ABORT, 'the ledger is append-only');
END;

-- Pre-/post-battle sequences in progress, one JSON document each (the
-- caller's pydantic model; "model" records its class for a sanity check).
CREATE TABLE sequences (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    key TEXT NOT NULL,
    model TEXT NOT NULL,
    battle_id TEXT,
    state TEXT NOT NULL,
    revision INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (campaign_pk, key)
);
