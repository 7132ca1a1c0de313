-- How the gateways that share these fences name resources: the store kind, its virtual-host
-- domains, the store path the upstream URL adds, and the job scopes. Two instances that name one
-- object differently would check it against two fences, so an instance whose naming differs from
-- the one recorded here refuses writes. The first instance records its own, carrying the fences
-- already here to its keys. A change is made by an instance started to make it: it records the new
-- naming with carried = false (every instance then refuses writes), waits until no instance can
-- still be admitting under the old one, raises each fence's key under the new naming to at least
-- that fence, and sets carried = true. carried_naming is the last naming whose fences were carried:
-- a change recorded and never carried can still be taken back to it.
CREATE TABLE fence_naming (
    only_row       boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    naming         text        NOT NULL,
    naming_key     text        NOT NULL,
    carried        boolean     NOT NULL,
    carried_naming text        NOT NULL,
    changed_at     timestamptz NOT NULL DEFAULT now()
);

-- A gateway session names its naming (fencegate.naming, the SHA-256 of its text in hex, set when
-- it connects; naming_key is the same for the naming recorded). Its registrations are made only
-- while that naming is recorded and carried, checked once per statement that makes them: a gateway
-- paused past a change, or judging a claim it took before the change, cannot register a write under
-- the old naming once the change is recorded, and a registration written before it is one the
-- change waits for. Sessions that name no naming (operators, older gateways) are not checked.
CREATE FUNCTION fence_inflight_naming_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM fence_naming
                   WHERE carried AND naming_key = current_setting('fencegate.naming', true)) THEN
        RAISE EXCEPTION 'fencegate: this gateway names resources otherwise than the fences are recorded (fence_naming); its writes are refused'
            USING ERRCODE = 'raise_exception';
    END IF;
    RETURN NULL;
END;
$$;

-- Once per statement, whatever number of rows it writes; sessions that name no naming call nothing.
-- Registrations and their renewals are both upserts (INSERT statements), so once a change is
-- recorded an instance under the old naming neither registers nor renews, and its rows end when
-- withdrawn or at their expiry. A plain UPDATE (narrowing a row) is not checked: it makes no row.
CREATE TRIGGER fence_inflight_naming_check
    BEFORE INSERT ON fence_inflight
    FOR EACH STATEMENT WHEN (coalesce(current_setting('fencegate.naming', true), '') <> '')
    EXECUTE FUNCTION fence_inflight_naming_check();
