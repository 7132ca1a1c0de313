package dev.fencegate.client;

/** The lease store could not answer; whoever held a lease through it must treat it as lost. */
public final class LeaseStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LeaseStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
