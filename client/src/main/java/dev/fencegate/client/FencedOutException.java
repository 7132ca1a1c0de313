package dev.fencegate.client;

/**
 * The gateway refused a write because a newer holder's token is on the resource (or this token
 * was granted twice). The guard has tripped: nothing more should be written under this lease.
 */
public final class FencedOutException extends LeaseLostException {

    private static final long serialVersionUID = 1L;

    private final FenceRefusal refusal;

    public FencedOutException(Lease lease, FenceRefusal refusal, String detail, Throwable cause) {
        super(lease, reason(refusal, detail), cause);
        this.refusal = refusal;
    }

    static String reason(FenceRefusal refusal, String detail) {
        return "fenced out by the gateway (" + refusal.s3Code() + "): " + detail;
    }

    public FenceRefusal refusal() {
        return refusal;
    }
}
