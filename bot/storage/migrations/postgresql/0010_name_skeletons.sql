-- Schema version 10 on PostgreSQL, the twin of ../0010_name_skeletons.sql: the
-- same Python step (bot/storage/name_migration.py, rekey_by_skeleton) re-keys
-- every stored name by its confusable skeleton; no table changes.
SELECT 1;
