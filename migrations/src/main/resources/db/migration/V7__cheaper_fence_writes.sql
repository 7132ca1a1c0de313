-- Two costs every fence-changing write paid for nothing.
--
-- Trigger functions ran for every row the gateway wrote, only to find that its session is the
-- gateway's (V3, V6) or that the token went up (V1). A trigger's WHEN condition is checked as the
-- row is written, without calling the function or, for an AFTER trigger, queueing an event; the
-- conditions below are the functions' own tests, so the triggers refuse and announce exactly what
-- they did before. A DELETE on fence still always fails.
--
-- Resource keys compared under the database's default collation went through the C library's
-- locale-aware comparison on every index descent. Keys are compared byte by byte now (collation
-- "C"): equality is unchanged (every deterministic collation compares equal only identical
-- strings), only the order of keys in the indexes changes, which nothing outside the database sees.
-- The primary keys are rebuilt under the table lock, once.

DROP TRIGGER fence_never_lower ON fence;
CREATE TRIGGER fence_never_lower
    BEFORE UPDATE ON fence
    FOR EACH ROW WHEN (NEW.token < OLD.token) EXECUTE FUNCTION fence_never_lower();
CREATE TRIGGER fence_never_deleted
    BEFORE DELETE ON fence
    FOR EACH ROW EXECUTE FUNCTION fence_never_lower();

DROP TRIGGER fence_announce_change ON fence;
CREATE TRIGGER fence_announce_change
    AFTER INSERT OR UPDATE ON fence
    FOR EACH ROW WHEN (coalesce(current_setting('fencegate.gateway', true), '') <> 'on')
    EXECUTE FUNCTION fence_announce_change();

DROP TRIGGER fence_inflight_announce_removal ON fence_inflight;
CREATE TRIGGER fence_inflight_announce_removal
    AFTER DELETE ON fence_inflight
    FOR EACH ROW WHEN (coalesce(current_setting('fencegate.gateway', true), '') <> 'on')
    EXECUTE FUNCTION fence_inflight_announce_removal();

ALTER TABLE fence ALTER COLUMN resource TYPE text COLLATE "C";
ALTER TABLE fence_inflight ALTER COLUMN resource TYPE text COLLATE "C";
ALTER TABLE multipart_upload ALTER COLUMN resource TYPE text COLLATE "C";
