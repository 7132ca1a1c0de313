-- A session with session_replication_role = replica (a bulk load, a restore, a superuser's hand
-- fix, a logical replication apply) skips every trigger that is not enabled ALWAYS. The guards
-- would then let a fence be lowered, renamed, deleted or truncated, and a raise or a registration
-- removed by hand would not be announced, so instances holding the old fence would go on admitting
-- below the new one. They fire in every session role from here on. (ALTER TABLE ... DISABLE
-- TRIGGER stays open to the tables' owner: let the gateways connect as a role that does not own
-- them.)
ALTER TABLE fence ENABLE ALWAYS TRIGGER fence_never_lower;
ALTER TABLE fence ENABLE ALWAYS TRIGGER fence_never_deleted;
ALTER TABLE fence ENABLE ALWAYS TRIGGER fence_refuse_truncate;
ALTER TABLE fence ENABLE ALWAYS TRIGGER fence_announce_change;
ALTER TABLE fence_inflight ENABLE ALWAYS TRIGGER fence_inflight_refuse_truncate;
ALTER TABLE fence_inflight ENABLE ALWAYS TRIGGER fence_inflight_announce_removal;
ALTER TABLE fence_inflight ENABLE ALWAYS TRIGGER fence_inflight_announce_update;
ALTER TABLE fence_inflight ENABLE ALWAYS TRIGGER fence_inflight_naming_check;
