"""Developer tools run by hand (not part of the bot)."""
