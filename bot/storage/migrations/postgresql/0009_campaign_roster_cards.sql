-- Schema version 9 on PostgreSQL, the twin of ../0009_campaign_roster_cards.sql:
-- whether /gang show attaches the roster card when the player does not say is a
-- setting of each campaign (BIGINT like every flag here). NULL: the bot's own default ([pictures] roster_card).
ALTER TABLE campaigns ADD COLUMN roster_cards BIGINT CHECK (roster_cards IN (0, 1));
