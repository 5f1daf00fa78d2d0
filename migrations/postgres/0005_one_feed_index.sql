-- The feed's cursor names an entry by (txid, position) (api/src/store/postgres.rs), so the one
-- index events_feed finds it and reads on from it. The index on position alone was one more
-- entry to write with every event, on the hot path of every move.
DROP INDEX events_by_position;
