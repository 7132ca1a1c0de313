package dev.fencegate.fence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One blocking attempt to admit a claim, in the order that keeps writes ordered across
 * instances: make the claim visible as possibly in flight, then read and judge the fence, then
 * hold back if a lower-token write may still be on its way. Runs on a fence-check thread, except
 * {@link #admitHeld}, which reads no store and runs wherever the claim arrives.
 */
public final class FenceAdmission {

    private static final Logger log = LoggerFactory.getLogger(FenceAdmission.class);

    private final FenceStore store;
    private final InflightRegistrations registrations;
    private final LocalInflight local;
    private final RememberedFences remembered;
    private final Consumer<FenceClaim> regressionSeen;
    private final LongAdder heldAdmissions = new LongAdder();

    public FenceAdmission(FenceStore store, InflightRegistrations registrations, LocalInflight local,
                          RememberedFences remembered, Consumer<FenceClaim> regressionSeen) {
        this.store = store;
        this.registrations = registrations;
        this.local = local;
        this.remembered = remembered;
        this.regressionSeen = regressionSeen;
    }

    /** Below what this instance already admitted: stale without asking the store. */
    public Optional<FenceDecision> knownStale(FenceClaim claim) {
        OptionalLong highest = remembered.highest(claim.resource());
        if (highest.isPresent() && claim.token().value() < highest.getAsLong()) {
            return Optional.of(new FenceDecision.Stale(claim, rememberedFence(claim, highest.getAsLong())));
        }
        return Optional.empty();
    }

    /**
     * Admits {@code claim} and enters it as in flight when it is at a fence this instance holds
     * (see {@link InflightRegistrations}), with no lower-token write of its own in flight; empty
     * when the store must be asked. Never blocks.
     */
    public Optional<FenceDecision> admitHeld(FenceClaim claim) {
        synchronized (local.lock()) {
            if (!registrations.heldFenceAdmits(claim) || local.hasLowerThan(claim) || rememberedAbove(claim)) {
                return Optional.empty();
            }
            local.enter(claim);
        }
        heldAdmissions.increment();
        return Optional.of(new FenceDecision.Admitted(claim, Optional.of(claim.token())));
    }

    /** Claims admitted at a held fence, without a trip to the store. */
    public long heldAdmissions() {
        return heldAdmissions.sum();
    }

    private boolean rememberedAbove(FenceClaim claim) {
        OptionalLong highest = remembered.highest(claim.resource());
        return highest.isPresent() && highest.getAsLong() > claim.token().value();
    }

    /** Call after {@link LocalInflight#enter(FenceClaim)}. */
    public FenceDecision attempt(FenceClaim claim) {
        return attemptAll(List.of(claim)).get(0);
    }

    /**
     * Judges a batch of entered claims with one trip to the store, after registering them in one.
     * When the registration fails, every claim gets Unavailable: none may be judged unregistered.
     *
     * @throws FenceStoreUnavailableException when the store could judge none of them
     */
    public List<FenceDecision> attemptAll(List<FenceClaim> claims) {
        try {
            registrations.coverAll(claims);
        } catch (FenceStoreUnavailableException e) {
            return new ArrayList<>(Collections.nCopies(claims.size(), new FenceDecision.Unavailable(e.getMessage())));
        }
        List<InflightRegistrations.Hold> holds = new ArrayList<>(claims.size());
        synchronized (local.lock()) {
            claims.forEach(claim -> holds.add(registrations.startHolding(claim)));
        }
        List<FenceDecision> judged;
        try {
            judged = store.admitAll(claims);
        } catch (RuntimeException e) {
            // A raise may have committed before the failure.
            synchronized (local.lock()) {
                claims.forEach(claim -> registrations.dropHeld(claim.resource()));
            }
            throw e;
        }
        List<FenceDecision> decisions = new ArrayList<>(claims.size());
        for (int i = 0; i < claims.size(); i++) {
            decisions.add(settle(claims.get(i), judged.get(i), holds.get(i)));
        }
        return decisions;
    }

    /**
     * Under the local lock, so that a claim admitted at a held fence and a raise settled here
     * see each other: either the raise waits for the claim, or the claim sees the raise.
     */
    private FenceDecision settle(FenceClaim claim, FenceDecision decision, InflightRegistrations.Hold hold) {
        if (decision instanceof FenceDecision.Admitted admitted) {
            decision = guardAgainstRegression(admitted);
        }
        synchronized (local.lock()) {
            if (decision instanceof FenceDecision.Admitted admitted) {
                if (local.hasLowerThan(claim)) {
                    registrations.dropHeld(claim.resource());
                    return new FenceDecision.Draining(claim, new Fence(claim.resource(), claim.token(), claim.holder()));
                }
                remembered.admitted(claim);
                if (admitted.raised()) {
                    registrations.dropHeld(claim.resource());
                } else {
                    hold.admitted(claim);
                }
            } else if (decision instanceof FenceDecision.Draining || decision instanceof FenceDecision.Unavailable) {
                // The fence may have gone up, or will: stop admitting at the old one.
                registrations.dropHeld(claim.resource());
            }
            return decision;
        }
    }

    /**
     * The store admitted a token below one this instance admitted before: it lost the fence (a
     * failover to a replica that missed commits, a restore). Refuse, say so loudly, and put the
     * fence back up.
     */
    private FenceDecision guardAgainstRegression(FenceDecision.Admitted admitted) {
        FenceClaim claim = admitted.claim();
        OptionalLong highest = remembered.highest(claim.resource());
        if (highest.isEmpty() || claim.token().value() >= highest.getAsLong()) {
            return admitted;
        }
        log.error("FENCE REGRESSION for {}: the fence store held {} but this instance admitted {} before; "
                        + "refusing token {} and raising the fence back to {}", claim.resource(),
                admitted.previous().map(Object::toString).orElse("no fence"), highest.getAsLong(), claim.token(),
                highest.getAsLong());
        regressionSeen.accept(claim);
        store.admit(new FenceClaim(claim.resource(), new FencingToken(highest.getAsLong()), Optional.empty()));
        return new FenceDecision.Stale(claim, rememberedFence(claim, highest.getAsLong()));
    }

    private static Fence rememberedFence(FenceClaim claim, long token) {
        return new Fence(claim.resource(), new FencingToken(token), Optional.empty());
    }
}
