-- Gateways hold the fences of resources they keep writing to, and admit claims at a held fence
-- without reading this table, for as long as their fence_inflight row stands. Raises made through
-- a gateway reach the others through that row. A change made any other way (an operator's
-- UPDATE, a tool writing here) is announced on the gateways' channel, so they stop holding the
-- old fence. Gateway sessions set fencegate.gateway and are not announced here.
CREATE FUNCTION fence_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('fencegate.gateway', true), '') <> 'on' THEN
        PERFORM pg_notify('fencegate_inflight', NEW.resource);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER fence_announce_change
    AFTER INSERT OR UPDATE ON fence
    FOR EACH ROW EXECUTE FUNCTION fence_announce_change();
