package dev.fencegate.fence;

import java.util.Optional;

/**
 * What this instance knows of a fence it holds: the token the store admitted at, and a holder it
 * admitted at that token, if any. Enough to admit more claims at that token exactly as
 * {@link FencePolicy} would; anything else (a higher token, another holder) goes to the store.
 */
public record HeldFence(long token, Optional<Holder> admittedHolder) {

    /** A claim the store admitted without raising the fence. */
    public static HeldFence of(FenceClaim admitted) {
        return new HeldFence(admitted.token().value(), admitted.holder());
    }

    /**
     * Whether the fence admits {@code claim}: the same token, and no holder or the one admitted
     * before. A fence recorded with another holder would refuse it, so that case is not decided here.
     */
    public boolean admits(FenceClaim claim) {
        return claim.token().value() == token
                && (claim.holder().isEmpty() || claim.holder().equals(admittedHolder));
    }

    /** The same fence, also knowing {@code admitted}'s holder when this one knew none. */
    public HeldFence and(FenceClaim admitted) {
        if (admitted.token().value() != token || admittedHolder.isPresent() || admitted.holder().isEmpty()) {
            return this;
        }
        return new HeldFence(token, admitted.holder());
    }
}
