-- V15 told gateway sessions apart by a mark only gateways read (gateway_mark). Sessions of earlier
-- versions, which set fencegate.gateway = 'on', were then taken for anyone's: their own raises and
-- registrations were announced back to them, and an instance that hears of a change to a resource
-- drops its hold and stops its write under way (503 admission-expired), so every instance of an
-- earlier version refused every write once one of this version had migrated. A session is the
-- gateway's when it sets the mark, or when it sets 'on' under an application name a gateway gives
-- its sessions ('fencegate', or 'fencegate/' and its schema); one that sets 'on' by hand (PGOPTIONS,
-- SET, ALTER ROLE ... SET) under another application name (psql's, a console's) is still announced.
DO $$
DECLARE
    gateway text := format('coalesce(current_setting(%L, true), %L) <> %L AND NOT (coalesce(current_setting(%L, true), %L) = %L'
        ' AND (current_setting(%L) = %L OR current_setting(%L) LIKE %L))',
        'fencegate.gateway', '', (SELECT mark FROM gateway_mark), 'fencegate.gateway', '', 'on',
        'application_name', 'fencegate', 'application_name', 'fencegate/%');
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
