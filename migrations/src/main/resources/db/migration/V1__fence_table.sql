-- One row per fenced resource. The token only ever goes up and no row is ever deleted:
-- a lost or lowered row would let a stale writer back in.
CREATE TABLE fence (
    resource    text        PRIMARY KEY,
    token       bigint      NOT NULL CHECK (token > 0),
    holder      text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION fence_never_lower() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'fence rows are never deleted (resource %)', OLD.resource;
    END IF;
    IF NEW.token < OLD.token THEN
        RAISE EXCEPTION 'fence for % may not go down from % to %', OLD.resource, OLD.token, NEW.token;
    END IF;
    RETURN NEW;
END;
$$;

-- The gateway never lowers or deletes a fence; this trigger makes a mistaken manual
-- statement fail the same way.
CREATE TRIGGER fence_never_lower
    BEFORE UPDATE OR DELETE ON fence
    FOR EACH ROW EXECUTE FUNCTION fence_never_lower();
