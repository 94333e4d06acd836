-- Schema version 11: durable timers (bot/timers.py) and scheduled battles
-- (bot/storage/calendar.py, docs/reliability.md).
--
-- A timer is a row until it has fired: the worker marks it fired in the same
-- transaction as its handler's writes (a post owed through the outbox, say), so
-- a crash either leaves it due (it fires after the restart, late) or fired with
-- everything it did; nothing timed lives only in memory.
--
-- IF NOT EXISTS: the migration may run again on a file whose version was set back
-- by hand (the tests of older migrations do), and changes nothing there.

CREATE TABLE IF NOT EXISTS timers (
    pk INTEGER PRIMARY KEY,
    -- Every query names the server, like every other table's.
    guild_id INTEGER NOT NULL,
    -- What the timer is, unique per server: setting a key again moves its timer.
    key TEXT NOT NULL,
    -- The handler that runs it (bot.timers.on_timer).
    kind TEXT NOT NULL,
    -- Seconds since the epoch (UTC) of the bot's clock at which it is due.
    due_at REAL NOT NULL,
    -- JSON object handed to the handler; "campaign" names the campaign it goes with.
    args TEXT NOT NULL,
    created_at TEXT NOT NULL,
    -- A handler that failed is tried again from then (epoch seconds), less and less often.
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at REAL,
    last_error TEXT,
    -- The bot clock's time at which it fired (epoch seconds); NULL while it is due.
    fired_at REAL,
    UNIQUE (guild_id, key)
);
-- The worker's scan: timers not fired yet, soonest first.
CREATE INDEX IF NOT EXISTS timers_due ON timers (due_at) WHERE fired_at IS NULL;

-- A battle two gangs are to play: proposed, agreed on a time, played or called off.
CREATE TABLE IF NOT EXISTS scheduled_battles (
    pk INTEGER PRIMARY KEY,
    campaign_pk INTEGER NOT NULL REFERENCES campaigns (pk) ON DELETE CASCADE,
    id TEXT NOT NULL,
    -- JSON list of the gang ids, in the order given.
    gang_ids TEXT NOT NULL,
    -- The Territory at stake (a name), and the challenge it came from, if any.
    territory TEXT,
    challenge_key TEXT,
    -- open | proposed | agreed | started | completed | cancelled
    status TEXT NOT NULL,
    -- The proposed or agreed start (epoch seconds, UTC) and the gang that proposed it.
    starts_at REAL,
    proposed_by TEXT,
    -- The Discord Guild Scheduled Event made on agreement, and the /prebattle battle.
    event_id INTEGER,
    battle_id TEXT,
    -- Where the proposals were made: the reminders are posted there.
    channel_id INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (campaign_pk, id)
);

-- Scheduling settings of a campaign, kept apart from its core settings: the time zone
-- players type times in, the reminders' lead times (minutes before the start) and
-- the length of the Discord event.
CREATE TABLE IF NOT EXISTS calendar_settings (
    campaign_pk INTEGER PRIMARY KEY REFERENCES campaigns (pk) ON DELETE CASCADE,
    time_zone TEXT NOT NULL,
    reminder_minutes TEXT NOT NULL,
    -- How long the Discord event lasts (its end time), in minutes.
    event_minutes INTEGER NOT NULL
);
