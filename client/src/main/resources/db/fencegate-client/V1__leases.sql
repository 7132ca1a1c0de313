-- One row per lease name, kept for good: the token of the next grant is the row's token plus one,
-- so tokens only go up even across releases. Expiry is judged by this database's clock alone.
CREATE TABLE leases (
    name       text        PRIMARY KEY,
    holder     text,
    token      bigint      NOT NULL CHECK (token > 0),
    expires_at timestamptz NOT NULL,
    CHECK (holder IS NULL OR holder <> '')
);

-- A lower token, or a deleted row, would let a later grant reuse a number a paused holder still carries.
CREATE FUNCTION leases_token_never_goes_down() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'lease rows are never deleted (lease %)', OLD.name;
    END IF;
    IF NEW.token < OLD.token THEN
        RAISE EXCEPTION 'lease % token cannot go down from % to %', OLD.name, OLD.token, NEW.token;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER leases_token_never_goes_down
    BEFORE UPDATE OR DELETE ON leases
    FOR EACH ROW EXECUTE FUNCTION leases_token_never_goes_down();
