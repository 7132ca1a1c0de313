-- Which gateway instances may have writes to a resource in flight to the store, and the lowest
-- token among them. A write with a higher token waits until no other instance's row with a lower
-- token is live, so a slow lower-token write cannot land after it. A row whose instance died
-- stops counting at "until": by then the instance's store requests have all timed out.
CREATE TABLE fence_inflight (
    resource   text        NOT NULL,
    instance   uuid        NOT NULL,
    min_token  bigint      NOT NULL CHECK (min_token > 0),
    until      timestamptz NOT NULL,
    generation bigint      NOT NULL,
    PRIMARY KEY (resource, instance)
);
