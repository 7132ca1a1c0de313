-- A registration row's generation names one write of it: a withdrawal or a narrowing touches the
-- row only while it still has the generation the sweep saw. Counted per row from 1, generations
-- repeated once a row was removed and written anew (another instance removed it as expired, then
-- this instance's next claim registered again, at 1): a withdrawal planned for the old row, run
-- late, matched the new one and removed it while writes under it were in flight, and another
-- instance's raise then waited for none of them. Every write of a row now takes the next value of
-- one sequence, which never repeats, and grows with each write of a row as the count did.
CREATE SEQUENCE fence_inflight_generation;
SELECT setval('fence_inflight_generation', coalesce((SELECT max(generation) FROM fence_inflight), 0) + 1, false);
