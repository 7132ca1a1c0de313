-- V1 refused a lower token and a DELETE, but three other ways lose a lease's row as surely, and with
-- it the count its next grant goes on from, so that a grant reuses a number a paused holder still
-- carries: TRUNCATE (no row trigger fires on it), an UPDATE of the name (the old name has no row,
-- and its next grant is token 1), and any of them in a session with session_replication_role =
-- replica (a bulk load, a restore, logical replication apply), which skips every trigger not
-- enabled ALWAYS. All are refused from here on. (ALTER TABLE ... DISABLE TRIGGER stays open to the
-- table's owner: let workers connect as a role that does not own it.)
CREATE OR REPLACE FUNCTION leases_token_never_goes_down() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'lease rows are never removed by TRUNCATE';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'lease rows are never deleted (lease %)', OLD.name;
    END IF;
    IF NEW.name <> OLD.name THEN
        RAISE EXCEPTION 'lease % cannot be renamed to %: its next grant would start again at 1', OLD.name, NEW.name;
    END IF;
    IF NEW.token < OLD.token THEN
        RAISE EXCEPTION 'lease % token cannot go down from % to %', OLD.name, OLD.token, NEW.token;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER leases_never_truncated
    BEFORE TRUNCATE ON leases
    FOR EACH STATEMENT EXECUTE FUNCTION leases_token_never_goes_down();

ALTER TABLE leases ENABLE ALWAYS TRIGGER leases_token_never_goes_down;
ALTER TABLE leases ENABLE ALWAYS TRIGGER leases_never_truncated;
