package dev.fencegate.loadtest.compare;

/** A comparison cannot go on; the message says what to do about it. */
public final class CompareException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CompareException(String message) {
        super(message);
    }

    public CompareException(String message, Throwable cause) {
        super(message, cause);
    }
}
