package dev.fencegate.client;

/** The work must stop: its lease ran out, could not be renewed, or was released. */
public class LeaseLostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Lease lease;

    public LeaseLostException(Lease lease, String reason) {
        this(lease, reason, null);
    }

    public LeaseLostException(Lease lease, String reason, Throwable cause) {
        super("lease " + lease.name() + " (token " + lease.token() + ", holder " + lease.holder() + ") lost: " + reason, cause);
        this.lease = lease;
    }

    public Lease lease() {
        return lease;
    }
}
