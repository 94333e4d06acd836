-- Schema version 1: campaigns and everything the rules act on.
--
-- Surrogate integer keys (pk) link the tables; the domain ids the rules see
-- ("id", short hex) are unique per campaign, never globally, so two servers
-- can hold the same ids (an imported campaign keeps its ids) and every lookup
-- by id goes through a campaign that was itself found by guild id.
-- name_key is the name case-folded with whitespace collapsed (computed in
-- Python: SQLite's NOCASE folds ASCII only), so "Ash Wolves" and
-- "ash  WOLVES" are the same name.

CREATE TABLE campaigns (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    guild_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    scenario_die TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    skirmish INTEGER NOT NULL CHECK (skirmish IN (0, 1)),
    arbitrator_user_ids TEXT NOT NULL DEFAULT '[]',
    arbitrator_role_id INTEGER,
    report_channel_id INTEGER,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX campaigns_guild_name ON campaigns (guild_id, name_key);
-- At most one default campaign per server.
CREATE UNIQUE INDEX campaigns_guild_default ON campaigns (guild_id) WHERE is_default = 1;

CREATE TABLE gangs (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    house TEXT NOT NULL,
    owner TEXT NOT NULL,
    alignment TEXT NOT NULL,
    credits INTEGER NOT NULL CHECK (credits >= 0),
    reputation INTEGER NOT NULL,
    battles_fought INTEGER NOT NULL,
    UNIQUE (campaign_pk, id),
    UNIQUE (campaign_pk, name_key),
    -- Target of the composite foreign keys below: a fighter or vehicle can
    -- only belong to a gang of its own campaign.
    UNIQUE (campaign_pk, pk)
);
CREATE INDEX gangs_owner ON gangs (campaign_pk, owner);

-- The profile is twelve integer columns rather than JSON: it has a fixed
-- shape, and columns keep it queryable and checked by type.
CREATE TABLE fighters (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL,
    gang_pk INTEGER NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    category TEXT NOT NULL,
    fighter_type TEXT NOT NULL,
    cost INTEGER NOT NULL,
    m INTEGER NOT NULL,
    ws INTEGER NOT NULL,
    bs INTEGER NOT NULL,
    s INTEGER NOT NULL,
    t INTEGER NOT NULL,
    w INTEGER NOT NULL,
    i INTEGER NOT NULL,
    a INTEGER NOT NULL,
    ld INTEGER NOT NULL,
    cl INTEGER NOT NULL,
    wil INTEGER NOT NULL,
    int_ INTEGER NOT NULL,
    xp INTEGER NOT NULL,
    kills INTEGER NOT NULL,
    advancements TEXT NOT NULL,
    skills TEXT NOT NULL,
    special_rules TEXT NOT NULL,
    status TEXT NOT NULL,
    captured_by TEXT,
    rescue_chance_given INTEGER NOT NULL,
    lasting_injuries TEXT NOT NULL,
    gang_hierarchy INTEGER NOT NULL,
    critical_injury INTEGER NOT NULL,
    escorted_to_doc INTEGER NOT NULL,
    FOREIGN KEY (campaign_pk, gang_pk) REFERENCES gangs (campaign_pk, pk) ON DELETE CASCADE,
    UNIQUE (campaign_pk, id),
    UNIQUE (campaign_pk, name_key),
    UNIQUE (gang_pk, pk)
);
CREATE INDEX fighters_gang ON fighters (gang_pk, position);
-- Captives: "which fighters does this gang hold?" (PB-1.6).
CREATE INDEX fighters_captor ON fighters (campaign_pk, captured_by)
    WHERE captured_by IS NOT NULL;

CREATE TABLE vehicles (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL,
    gang_pk INTEGER NOT NULL,
    -- 0: on the roster (Gang.vehicles); 1: in the Stash (Gang.stash_vehicles).
    in_stash INTEGER NOT NULL CHECK (in_stash IN (0, 1)),
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    vehicle_type TEXT NOT NULL,
    cost INTEGER NOT NULL,
    lasting_damage TEXT NOT NULL,
    crew_id TEXT,
    status TEXT NOT NULL,
    FOREIGN KEY (campaign_pk, gang_pk) REFERENCES gangs (campaign_pk, pk) ON DELETE CASCADE,
    UNIQUE (campaign_pk, id),
    UNIQUE (campaign_pk, name_key),
    UNIQUE (gang_pk, pk)
);
CREATE INDEX vehicles_gang ON vehicles (gang_pk, in_stash, position);

-- Every item a gang owns, wherever it is. Item ids are unique per gang (not
-- per campaign) so an item can change hands between gangs in one action.
CREATE TABLE items (
    pk INTEGER PRIMARY KEY,
    gang_pk INTEGER NOT NULL REFERENCES gangs (pk) ON DELETE CASCADE,
    slot TEXT NOT NULL
        CHECK (slot IN ('stash', 'fighter', 'vehicle_upgrade', 'vehicle_equipment')),
    fighter_pk INTEGER,
    vehicle_pk INTEGER,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    cost INTEGER NOT NULL,
    kind TEXT NOT NULL,
    rarity TEXT NOT NULL,
    level INTEGER,
    two_slots INTEGER NOT NULL,
    grants_mounted INTEGER NOT NULL,
    boon_of_sequence TEXT,
    FOREIGN KEY (gang_pk, fighter_pk) REFERENCES fighters (gang_pk, pk) ON DELETE CASCADE,
    FOREIGN KEY (gang_pk, vehicle_pk) REFERENCES vehicles (gang_pk, pk) ON DELETE CASCADE,
    UNIQUE (gang_pk, id),
    CHECK (
        (slot = 'stash' AND fighter_pk IS NULL AND vehicle_pk IS NULL)
        OR (slot = 'fighter' AND fighter_pk IS NOT NULL AND vehicle_pk IS NULL)
        OR (slot IN ('vehicle_upgrade', 'vehicle_equipment')
            AND vehicle_pk IS NOT NULL AND fighter_pk IS NULL)
    )
);
-- Indexes on the child side of the foreign keys, so cascades do not scan.
CREATE INDEX items_fighter ON items (gang_pk, fighter_pk) WHERE fighter_pk IS NOT NULL;
CREATE INDEX items_vehicle ON items (gang_pk, vehicle_pk) WHERE vehicle_pk IS NOT NULL;

CREATE TABLE territories (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    income TEXT NOT NULL,
    boons TEXT NOT NULL,
    can_be_staked INTEGER NOT NULL,
    -- Gang id (domain id) of the controller; not a foreign key because the
    -- rules may name a gang that a later action deletes.
    controller TEXT,
    UNIQUE (campaign_pk, id)
);
CREATE INDEX territories_name ON territories (campaign_pk, name_key);
CREATE INDEX territories_controller ON territories (campaign_pk, controller)
    WHERE controller IS NOT NULL;

CREATE TABLE battles (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    id TEXT NOT NULL,
    scenario TEXT NOT NULL,
    battlefield TEXT NOT NULL,
    winner TEXT,
    staked_territory TEXT,
    is_campaign INTEGER NOT NULL,
    rescue_mission INTEGER NOT NULL,
    -- End states and tallies: small nested lists only the rules read.
    details TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (campaign_pk, id)
);
-- Rowids follow creation order, so this index also lists battles newest first.
CREATE INDEX battles_campaign ON battles (campaign_pk);

-- Participants by gang id, kept after a gang is deleted: the history stays.
CREATE TABLE battle_gangs (
    battle_pk INTEGER NOT NULL REFERENCES battles (pk) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    gang_id TEXT NOT NULL,
    PRIMARY KEY (battle_pk, position)
) WITHOUT ROWID;
CREATE INDEX battle_gangs_gang ON battle_gangs (gang_id, battle_pk);
