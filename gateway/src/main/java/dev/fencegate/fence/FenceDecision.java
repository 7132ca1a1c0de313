package dev.fencegate.fence;

import java.util.Optional;

/** Every way a write can be judged. Only {@link Admitted} lets it reach the store. */
public sealed interface FenceDecision {

    /** Lets Java 17 code switch exhaustively over the decisions (no pattern switch before 21). */
    enum Kind { ADMITTED, STALE, REUSED, DRAINING, MISSING_TOKEN, MALFORMED_TOKEN, MALFORMED_HOLDER, UNAVAILABLE }

    Kind kind();

    /**
     * The claim is at or above the fence; the fence now holds {@code claim.token()}. The write may
     * go to the store only while {@code window} is open. {@code holderRecorded}: the fence it was
     * judged at, at its own token, already names the claim's holder, so there is no holder left to
     * record; false where that is not known.
     */
    record Admitted(FenceClaim claim, Optional<FencingToken> previous, SendWindow window, boolean holderRecorded)
            implements FenceDecision {

        /** As the store judges it, before an instance ties it to a registration. */
        public Admitted(FenceClaim claim, Optional<FencingToken> previous) {
            this(claim, previous, SendWindow.OPEN, false);
        }

        /** Admitted at a fence already at {@code claim.token()} that names the claim's holder. */
        public static Admitted atFenceNamingItsHolder(FenceClaim claim) {
            return new Admitted(claim, Optional.of(claim.token()), SendWindow.OPEN, true);
        }

        /** The same decision, sent only while {@code sendWindow} is open. */
        public Admitted within(SendWindow sendWindow) {
            return new Admitted(claim, previous, sendWindow, holderRecorded);
        }

        public boolean raised() {
            return previous.map(p -> p.isBelow(claim.token())).orElse(true);
        }

        @Override
        public Kind kind() {
            return Kind.ADMITTED;
        }
    }

    /**
     * The claim is below the fence: a holder whose lease was taken over. {@code heardOnly}: the
     * fence named is a raise this instance only heard announced, not one it read through its own
     * connection, so it tells nothing of what the store holds (any role that may connect can send
     * a notice).
     */
    record Stale(FenceClaim claim, Fence current, boolean heardOnly) implements FenceDecision {

        /** Below a fence read through this instance's own connection, or one it made itself. */
        public Stale(FenceClaim claim, Fence current) {
            this(claim, current, false);
        }

        @Override
        public Kind kind() {
            return Kind.STALE;
        }
    }

    /** The same token was granted to somebody else: the issuer lost state. */
    record Reused(FenceClaim claim, Fence current) implements FenceDecision {
        @Override
        public Kind kind() {
            return Kind.REUSED;
        }
    }

    /**
     * The claim is at or above the fence, but a write with a lower token to the same resource may
     * still be on its way to the store; forwarding now could let it land after this one. With
     * {@code expiredHolder}, the only such instance found has a registration that expired without
     * being withdrawn: it may not know yet, and still admit from a fence it holds.
     */
    record Draining(FenceClaim claim, Fence current, boolean expiredHolder) implements FenceDecision {

        public Draining(FenceClaim claim, Fence current) {
            this(claim, current, false);
        }

        @Override
        public Kind kind() {
            return Kind.DRAINING;
        }
    }

    /** The write carries no token at all. */
    record MissingToken() implements FenceDecision {
        @Override
        public Kind kind() {
            return Kind.MISSING_TOKEN;
        }
    }

    /** The token header is present but not a canonical token. */
    record MalformedToken(String detail) implements FenceDecision {
        @Override
        public Kind kind() {
            return Kind.MALFORMED_TOKEN;
        }
    }

    /** The holder header is present but unusable. */
    record MalformedHolder(String detail) implements FenceDecision {
        @Override
        public Kind kind() {
            return Kind.MALFORMED_HOLDER;
        }
    }

    /**
     * The fence store could not answer in time: the write is refused, never let through.
     * {@code mayHaveRaised}: the claim's raise committed, or may have, and was not announced.
     */
    record Unavailable(String detail, boolean mayHaveRaised) implements FenceDecision {

        public Unavailable(String detail) {
            this(detail, false);
        }

        @Override
        public Kind kind() {
            return Kind.UNAVAILABLE;
        }
    }
}
