-- A raise that creates a fence row is not announced to the other gateways: none of them can hold
-- a fence that has no row. That, like every fence, rests on rows never being removed. DELETE is
-- refused row by row (V1); TRUNCATE fires no row trigger, so it is refused here.
CREATE FUNCTION fence_never_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'fence rows are never deleted (TRUNCATE of %)', TG_TABLE_NAME;
END;
$$;

CREATE TRIGGER fence_never_truncated
    BEFORE TRUNCATE ON fence
    FOR EACH STATEMENT EXECUTE FUNCTION fence_never_truncated();
