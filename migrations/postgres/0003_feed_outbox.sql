-- The post-commit bus (issue 9): event versions, a store-wide feed position, a wake-up for
-- other instances, and an outbox. Forward from 0002 with data in it.

-- The version of each event's data shape: 1 for every shape so far; a reader upcasts older
-- shapes when one changes.
ALTER TABLE events ADD COLUMN event_version INTEGER NOT NULL DEFAULT 1;

-- The transaction that wrote each event. Positions are drawn from a sequence when a row is
-- written but become visible when it commits, so followers read below the oldest transaction
-- still in flight, in order of (txid, position) (api/src/store/postgres.rs). Existing rows get
-- this migration's transaction.
ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();

-- A volatile default numbers every existing row as the table is rewritten, without an UPDATE
-- (which the append-only trigger refuses).
CREATE SEQUENCE events_position AS BIGINT;
ALTER TABLE events ADD COLUMN position BIGINT NOT NULL DEFAULT nextval('events_position');
ALTER SEQUENCE events_position OWNED BY events.position;
CREATE UNIQUE INDEX events_by_position ON events (position);
CREATE INDEX events_feed ON events (txid, position);

-- Every append moves its game's head: announce it on commit, so followers on other instances
-- wake. The payload is '<game uuid>:<version>'.
CREATE FUNCTION game_heads_announce() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('parlour_events', NEW.game_id::text || ':' || NEW.version::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_heads_announce
    AFTER INSERT OR UPDATE ON game_heads
    FOR EACH ROW EXECUTE FUNCTION game_heads_announce();

-- Work that must not be lost, written in the same transaction as the events that call for it
-- and done at least once after. Mutable by design (claims, retries, completion), so the log's
-- append-only triggers do not apply to it.
CREATE TABLE outbox (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id      UUID NOT NULL REFERENCES games (id),
    topic        TEXT NOT NULL,
    payload      TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    -- When it may next be claimed: a claim pushes it forward by the lease.
    available_at TIMESTAMPTZ NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    done_at      TIMESTAMPTZ
);

CREATE INDEX outbox_due ON outbox (available_at, id) WHERE done_at IS NULL;
