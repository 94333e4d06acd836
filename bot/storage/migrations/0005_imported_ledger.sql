-- Schema version 5: ledger events brought in by /campaign import are marked as
-- such (docs/importing.md). A file is untrusted: its rows say what another
-- server recorded, not what was rolled here, so they are stored with the name
-- of the campaign they came from and the date of the import, and the ledger
-- shows them apart from the rolls and changes made on this server.
-- Both NULL: an event recorded here.
ALTER TABLE ledger_events ADD COLUMN imported_from TEXT;
ALTER TABLE ledger_events ADD COLUMN imported_at TEXT;
