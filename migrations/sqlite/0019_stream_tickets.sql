-- Stream tickets (issue 39). A browser's EventSource cannot send `Authorization`, so a client
-- trades its token for a ticket that opens one stream, once, within a minute, and puts the
-- ticket (never the token) in the stream's URL. Only the ticket's hash is kept, beside the
-- hash of the credential it stands for (the hash that credential's own table keeps: an
-- account token's, or a seat's) and the stream it opens (`game:<id>` or `notices`). A ticket
-- is deleted when it is used; expired ones are forgotten whenever a ticket is made.
CREATE TABLE stream_tickets (
    ticket_hash     TEXT PRIMARY KEY,
    credential      TEXT NOT NULL CHECK (credential IN ('account', 'seat')),
    credential_hash TEXT NOT NULL,
    stream          TEXT NOT NULL,
    expires_at      TEXT NOT NULL
) STRICT;
CREATE INDEX stream_tickets_expiry ON stream_tickets (expires_at);
