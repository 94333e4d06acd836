-- Schema version 9: whether /gang show attaches the roster card when the player does
-- not say is a setting of each campaign (rules.models.CampaignSettings.roster_cards,
-- docs/pictures.md), changed with /campaign settings roster_cards:.
--
-- NULL: the bot's own default ([pictures] roster_card in config.toml), which is
-- what every campaign stored before this version followed, so none changes here.
-- A campaign made from now on stores the bot's default of that moment (0 or 1).
ALTER TABLE campaigns ADD COLUMN roster_cards INTEGER CHECK (roster_cards IN (0, 1));
