-- The fence table announces raises, and fence_inflight removals, made by anyone but a gateway: a
-- gateway announces its own to the instances that need to hear them. Gateway sessions were told
-- apart by fencegate.gateway = 'on', which any session can set (PGOPTIONS, SET, ALTER ROLE ... SET
-- to get past a pooler): a raise by hand from such a session went unannounced, and an instance
-- holding the old fence went on admitting below the new one for as long as its writer kept
-- writing. The mark is now a random value chosen here, once per fence database, which gateway
-- sessions read from gateway_mark and set for themselves when they connect; 'on' marks nothing.
-- (A session that reads the mark and sets it is trusted as a gateway: let only the gateways
-- connect.)
CREATE TABLE gateway_mark (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    mark text NOT NULL
);
INSERT INTO gateway_mark (mark)
    VALUES (md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text || random()::text));

-- The triggers' conditions decide; the functions announce whenever they are called.
CREATE OR REPLACE FUNCTION fence_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('fencegate_inflight', NEW.resource);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION fence_inflight_announce_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('fencegate_inflight', OLD.resource);
    RETURN NULL;
END;
$$;

DO $$
DECLARE
    gateway text := format('coalesce(current_setting(%L, true), %L) <> %L', 'fencegate.gateway', '', (SELECT mark FROM gateway_mark));
BEGIN
    DROP TRIGGER fence_announce_change ON fence;
    EXECUTE format('CREATE TRIGGER fence_announce_change AFTER INSERT OR UPDATE ON fence'
        ' FOR EACH ROW WHEN (%s) EXECUTE FUNCTION fence_announce_change()', gateway);
    DROP TRIGGER fence_inflight_announce_removal ON fence_inflight;
    EXECUTE format('CREATE TRIGGER fence_inflight_announce_removal AFTER DELETE ON fence_inflight'
        ' FOR EACH ROW WHEN (%s) EXECUTE FUNCTION fence_inflight_announce_removal()', gateway);
    DROP TRIGGER fence_inflight_announce_update ON fence_inflight;
    EXECUTE format('CREATE TRIGGER fence_inflight_announce_update AFTER UPDATE ON fence_inflight'
        ' FOR EACH ROW WHEN (%s) EXECUTE FUNCTION fence_inflight_announce_removal()', gateway);
END;
$$;
ALTER TABLE fence ENABLE ALWAYS TRIGGER fence_announce_change;
ALTER TABLE fence_inflight ENABLE ALWAYS TRIGGER fence_inflight_announce_removal;
ALTER TABLE fence_inflight ENABLE ALWAYS TRIGGER fence_inflight_announce_update;
