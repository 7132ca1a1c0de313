-- Raises are no longer announced in the commit that makes them. An instance that may hold a fence,
-- or still send writes to its resource, has a registration row; a raise reads the registrations
-- after its commit, waits for any below it, and announces itself to their instances then. So the
-- rows must not disappear unannounced:
-- * a registration deleted other than by a gateway (an operator's DELETE) is announced as it goes,
--   like an outside change to a fence (V3): its instance stops holding the fence and stops sending
--   what it admitted under it;
-- * TRUNCATE fires no row trigger, so it is refused on both tables (fence rows are never removed
--   at all, V1).
CREATE FUNCTION fence_inflight_announce_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('fencegate.gateway', true), '') <> 'on' THEN
        PERFORM pg_notify('fencegate_inflight', OLD.resource);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER fence_inflight_announce_removal
    AFTER DELETE ON fence_inflight
    FOR EACH ROW EXECUTE FUNCTION fence_inflight_announce_removal();

CREATE FUNCTION fence_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are never removed by TRUNCATE (fence rows are never deleted; delete registrations row by row, which announces them)', TG_TABLE_NAME;
END;
$$;

CREATE TRIGGER fence_refuse_truncate
    BEFORE TRUNCATE ON fence
    FOR EACH STATEMENT EXECUTE FUNCTION fence_refuse_truncate();

CREATE TRIGGER fence_inflight_refuse_truncate
    BEFORE TRUNCATE ON fence_inflight
    FOR EACH STATEMENT EXECUTE FUNCTION fence_refuse_truncate();
