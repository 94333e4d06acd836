-- Schema version 4: the outbox of messages the bot owes a channel
-- (docs/reliability.md, bot/outbox.py).
--
-- A message is owed in the same transaction as the change that makes it owed
-- (a stage opened, an action stored, the battle report), so a crash can never
-- leave a change without its message or a message without its change. The
-- delivery worker posts due rows in order per channel, retries after 5xx, 429
-- and network errors (and after a restart), and records Discord's message id.

CREATE TABLE outbox (
    pk INTEGER PRIMARY KEY,
    -- Every query names the server, like every other table's.
    guild_id INTEGER NOT NULL,
    -- What the message is, unique per server: owing the same message twice
    -- (a retried transaction, a resume at start-up) owes it once.
    key TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    -- Where to post instead if channel_id refuses for good (deleted, no access).
    fallback_channel_id INTEGER,
    -- JSON body of POST /channels/{id}/messages (content, embeds, components,
    -- allowed_mentions), rendered from the state stored with it.
    payload TEXT NOT NULL,
    -- Sent with enforce_nonce: Discord answers a repeated nonce with the
    -- message it already made, so a retry after a lost answer posts nothing new.
    nonce TEXT NOT NULL,
    -- JSON naming what the delivered message belongs to (a run's stage, its
    -- report), for the hook that stores the message id there; NULL: nothing.
    link TEXT,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    -- Seconds since the epoch (UTC) before which it is not tried again.
    due_at REAL NOT NULL,
    last_error TEXT,
    -- Set once Discord accepted it: the message and the channel it went to.
    delivered_at TEXT,
    message_id INTEGER,
    delivered_channel_id INTEGER,
    -- Set when Discord refused it for good (and there was no fallback left).
    failed_at TEXT,
    UNIQUE (guild_id, key),
    CHECK (delivered_at IS NULL OR failed_at IS NULL)
);
-- The worker's scan: rows neither delivered nor given up, oldest first.
CREATE INDEX outbox_pending ON outbox (pk) WHERE delivered_at IS NULL AND failed_at IS NULL;
