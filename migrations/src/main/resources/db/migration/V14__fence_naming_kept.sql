-- The naming record says how the fences name objects and whether tokens are signed. With the row
-- gone, the next instance to check records its own naming and signing as the first instance on a
-- new database does: no fence carried, no wait for instances still admitting under the old one. An
-- instance started without the scopes, or without the token key, would then serve the stale and
-- unsigned writes the record made it refuse. So the row is never deleted or truncated, and a signing
-- setting once recorded is never unset. (The naming and the setting are changed by an instance
-- started with --change-fence-naming; an UPDATE by hand to another value is not refused here, nor
-- is dropping or disabling these as the tables' owner.) Like the fence table's guards, these fire in
-- every session role.
CREATE FUNCTION fence_naming_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF OLD.tokens_signed IS NOT NULL AND NEW.tokens_signed IS NULL THEN
            RAISE EXCEPTION 'fencegate: the token signing recorded in fence_naming is never unset; change it with an instance started with --change-fence-naming'
                USING ERRCODE = 'raise_exception';
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'fencegate: fence_naming is never deleted or truncated (it says how the fences name objects); change the naming with an instance started with --change-fence-naming'
        USING ERRCODE = 'raise_exception';
END;
$$;

CREATE TRIGGER fence_naming_never_unset
    BEFORE UPDATE ON fence_naming FOR EACH ROW EXECUTE FUNCTION fence_naming_kept();
CREATE TRIGGER fence_naming_never_deleted
    BEFORE DELETE ON fence_naming FOR EACH ROW EXECUTE FUNCTION fence_naming_kept();
CREATE TRIGGER fence_naming_refuse_truncate
    BEFORE TRUNCATE ON fence_naming FOR EACH STATEMENT EXECUTE FUNCTION fence_naming_kept();
ALTER TABLE fence_naming ENABLE ALWAYS TRIGGER fence_naming_never_unset;
ALTER TABLE fence_naming ENABLE ALWAYS TRIGGER fence_naming_never_deleted;
ALTER TABLE fence_naming ENABLE ALWAYS TRIGGER fence_naming_refuse_truncate;
