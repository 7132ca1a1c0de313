-- How the gateways that share these fences name resources: the store kind, its virtual-host
-- domains, the store path the upstream URL adds, and the job scopes. Two instances that name one
-- object differently would check it against two fences, so an instance whose naming differs from
-- the one recorded here refuses writes. The first instance records its own. A change is made by an
-- instance started to make it: it records the new naming with carried = false (every instance
-- then refuses writes), waits until no instance can still be admitting under the old one, raises
-- each fence's key under the new naming to at least that fence, and sets carried = true.
CREATE TABLE fence_naming (
    only_row   boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    naming     text        NOT NULL,
    carried    boolean     NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);
