-- Whether the gateways sharing these fences require signed tokens (--token-key-file). One instance
-- that admits unsigned tokens beside instances that require signatures would let any worker raise
-- a fence to 9223372036854775807 and fence every signed holder out for good, so an instance whose
-- setting differs from the one recorded here refuses writes, as for a naming that differs. Only
-- whether tokens are signed is recorded, never the key nor anything derived from it: rotating the
-- key changes nothing here. NULL means not recorded yet (the row was written by a version that did
-- not record it): the first instance that reads the row records its own setting, as the first
-- instance on a new database records its naming. Nothing is renamed by it, so no fence is carried.
ALTER TABLE fence_naming ADD COLUMN tokens_signed boolean;

-- A gateway session names its signing setting as it names its naming (fencegate.tokens, 'signed' or
-- 'unsigned', set when it connects), and its registrations are made only while that setting is the
-- one recorded, or none is recorded yet: a gateway paused past a change of the setting cannot
-- register, so cannot raise, a write judged under the old one. Sessions that name no setting (older
-- gateways, operators) are checked for their naming alone, as before.
CREATE OR REPLACE FUNCTION fence_inflight_naming_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM fence_naming
                   WHERE carried AND naming_key = current_setting('fencegate.naming', true)
                     AND (tokens_signed IS NULL
                          OR coalesce(current_setting('fencegate.tokens', true), '') = ''
                          OR tokens_signed = (current_setting('fencegate.tokens', true) = 'signed'))) THEN
        RAISE EXCEPTION 'fencegate: this gateway names resources otherwise than the fences are recorded (fence_naming), or checks tokens otherwise; its writes are refused'
            USING ERRCODE = 'raise_exception';
    END IF;
    RETURN NULL;
END;
$$;
