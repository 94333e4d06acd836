-- Schema version 10: name keys are the Unicode confusable skeleton (UTS #39,
-- rules/names.py), no longer a hand-made list of look-alike letters. No table
-- changes: the Python step (bot/storage/name_migration.py, rekey_by_skeleton)
-- recomputes every stored name_key, and renames the later of two names that
-- now share a key ("<name> (2)"), with a note in the campaign's ledger.
SELECT 1;
