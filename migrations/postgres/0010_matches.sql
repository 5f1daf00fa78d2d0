-- Matches (issue 13): a run of deals of one game played to a target. Each deal is an ordinary
-- game whose log links it to its match (`table.match_deal`), and deal k's game id is derived
-- from the match's id and k, so the match row holds only what the deals cannot say: who
-- plays, the options, clock and target every deal carries over. `record` is the JSON the
-- server wrote, kept as text so that what is read is exactly what was written.
CREATE TABLE matches (
    id         UUID PRIMARY KEY,
    game       TEXT NOT NULL,
    record     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
