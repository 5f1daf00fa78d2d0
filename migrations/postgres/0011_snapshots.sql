-- Snapshots of long games' tables (issue 16, "cold games"): a cold game loads from its latest
-- snapshot and the entries after it instead of folding its whole log. A snapshot is a cache
-- derived from the log alone, never the truth: it records the version and the chain hash of the
-- entry it was taken at, and is used only when that entry's hash in `events` is the same, and
-- only under the rules version and snapshot format it was written in. Deleting every row loses
-- nothing. Keyed by the game first, like every table a distributed Postgres would shard by game.
CREATE TABLE snapshots (
    game_id       UUID NOT NULL REFERENCES games (id),
    version       BIGINT NOT NULL,
    hash          TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    format        INTEGER NOT NULL,
    state         TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, version)
);
