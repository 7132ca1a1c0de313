-- With synchronous standbys, a commit whose wait for them was cancelled is visible on the primary
-- before any standby has it. A claim admitted on a read of the fence (writing nothing itself) is
-- admitted only once a commit made after that read is confirmed by the standbys, which confirm the
-- WAL in order. A transaction that writes no WAL does not wait for them, so the gateway makes that
-- commit by touching its own row here: one row per instance, so instances never wait on each other.
CREATE TABLE fence_confirmation (
    instance     uuid        PRIMARY KEY,
    confirmed_at timestamptz NOT NULL
);
