package dev.fencegate.client;

/** The lease store could not answer, or its answer may not last; the call's outcome is unknown. */
public final class LeaseStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LeaseStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
