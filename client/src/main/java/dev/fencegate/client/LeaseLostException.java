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

    /** The lease loss behind {@code failure}, however deep a client library wrapped it. */
    public static java.util.Optional<LeaseLostException> in(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LeaseLostException lost) {
                return java.util.Optional.of(lost);
            }
        }
        return java.util.Optional.empty();
    }

    public Lease lease() {
        return lease;
    }
}
