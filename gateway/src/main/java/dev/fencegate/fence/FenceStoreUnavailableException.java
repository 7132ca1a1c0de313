package dev.fencegate.fence;

/** The fence store could not give a durable answer; the write it was asked about is refused. */
public final class FenceStoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FenceStoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public FenceStoreUnavailableException(String message) {
        super(message);
    }
}
