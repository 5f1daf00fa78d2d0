-- Parlour's event store. The events table is the truth; everything else can be rebuilt from it
-- and the games/seats rows written when a game is created.

CREATE TABLE games (
    id              UUID PRIMARY KEY,
    game            TEXT NOT NULL,
    players         JSONB NOT NULL,
    options         JSONB NOT NULL,
    seed            BYTEA NOT NULL,
    seed_commitment TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);

CREATE TABLE seats (
    game_id    UUID NOT NULL REFERENCES games (id),
    seat       SMALLINT NOT NULL,
    name       TEXT NOT NULL,
    -- SHA-256 of the seat's bearer token; the token itself is shown once and never stored.
    token_hash TEXT NOT NULL UNIQUE,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE events (
    game_id   UUID NOT NULL REFERENCES games (id),
    seq       BIGINT NOT NULL,
    type      TEXT NOT NULL,
    actor     SMALLINT,
    data      JSONB NOT NULL,
    -- The action that produced this batch of events, on the batch's first event only.
    command   JSONB,
    at        TIMESTAMPTZ NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL,
    -- Optimistic concurrency: two writers deciding from the same version collide here.
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION events_are_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only: % is not allowed', TG_OP;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

CREATE TABLE idempotency_keys (
    game_id     UUID NOT NULL REFERENCES games (id),
    seat        SMALLINT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    version     BIGINT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, seat, key)
);
