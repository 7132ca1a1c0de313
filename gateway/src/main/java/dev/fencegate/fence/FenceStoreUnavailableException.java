package dev.fencegate.fence;

/**
 * The fence store could not give a durable answer; the write it was asked about is refused.
 * {@link #sent}: the statement reached the database before the answer was lost, so what it would
 * have written may have committed all the same.
 */
public final class FenceStoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean sent;

    public FenceStoreUnavailableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    public FenceStoreUnavailableException(String message, Throwable cause, boolean sent) {
        super(message, cause);
        this.sent = sent;
    }

    public FenceStoreUnavailableException(String message) {
        this(message, null, false);
    }

    /** Whether the statement was sent, so may have committed although its answer was lost. */
    public boolean sent() {
        return sent;
    }
}
