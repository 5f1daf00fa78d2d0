-- Commits are no longer announced from inside the appending transaction (issue 9's speed
-- check): Postgres serialises the commits of every transaction that has sent a NOTIFY, so a
-- trigger notifying on each append cost about a sixth of the moves per second. Instances now
-- announce after committing, coalesced, in a statement of their own (api/src/bus.rs).
DROP TRIGGER game_heads_announce ON game_heads;
DROP FUNCTION game_heads_announce();
