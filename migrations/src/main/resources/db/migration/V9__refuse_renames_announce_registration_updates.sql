-- Two changes by hand that went past the guards.
--
-- A fence row renamed (UPDATE fence SET resource = ...) is the old key's fence deleted: a writer
-- below it is admitted there as on a new resource. The never-lower trigger now refuses that too.
--
-- A registration row updated by hand (its min_token raised, or its resource or instance changed)
-- hides its instance from the next raise as surely as one deleted: that raise goes ahead without
-- waiting or telling the instance, which goes on sending below it. An update outside the gateways
-- is announced as a deletion is (V6): the instance stops sending what it admitted under the row and
-- registers again before its next write. Gateway sessions set fencegate.gateway and are not
-- announced; they update rows only to renew or narrow their own.

CREATE OR REPLACE FUNCTION fence_never_lower() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'fence rows are never deleted (resource %)', OLD.resource;
    END IF;
    IF NEW.resource IS DISTINCT FROM OLD.resource THEN
        RAISE EXCEPTION 'fence rows are never renamed (resource %): that would delete its fence', OLD.resource;
    END IF;
    IF NEW.token < OLD.token THEN
        RAISE EXCEPTION 'fence for % may not go down from % to %', OLD.resource, OLD.token, NEW.token;
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER fence_never_lower ON fence;
CREATE TRIGGER fence_never_lower
    BEFORE UPDATE ON fence
    FOR EACH ROW WHEN (NEW.token < OLD.token OR NEW.resource IS DISTINCT FROM OLD.resource)
    EXECUTE FUNCTION fence_never_lower();

-- The function announces OLD.resource: the resource whose registration changed under its instance.
CREATE TRIGGER fence_inflight_announce_update
    AFTER UPDATE ON fence_inflight
    FOR EACH ROW WHEN (coalesce(current_setting('fencegate.gateway', true), '') <> 'on')
    EXECUTE FUNCTION fence_inflight_announce_removal();
