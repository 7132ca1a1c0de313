package dev.fencegate.fence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
 * {@link #admitHeld}, which reads no store and runs wherever the claim arrives. Every raise this
 * instance makes, whatever asked for it, goes through {@link #raise}.
 */
public final class FenceAdmission {

    private static final Logger log = LoggerFactory.getLogger(FenceAdmission.class);

    private final FenceStore store;
    private final InstanceFences fences;
    private final RememberedFences remembered;
    private final Consumer<FenceClaim> regressionSeen;
    private final LongAdder heldAdmissions = new LongAdder();

    public FenceAdmission(FenceStore store, InstanceFences fences, RememberedFences remembered,
                          Consumer<FenceClaim> regressionSeen) {
        this.store = store;
        this.fences = fences;
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
     * Admits {@code claim} and enters it as in flight when it is at a fence this instance holds,
     * with no lower-token write of its own in flight; empty when the store must be asked. Never blocks.
     */
    public Optional<FenceDecision> admitHeld(FenceClaim claim) {
        OptionalLong highest = remembered.highest(claim.resource());
        if (highest.isPresent() && highest.getAsLong() > claim.token().value()) {
            return Optional.empty();
        }
        Optional<SendWindow> window = fences.admitHeld(claim);
        if (window.isEmpty()) {
            return Optional.empty();
        }
        heldAdmissions.increment();
        return Optional.of(new FenceDecision.Admitted(claim, Optional.of(claim.token()), window.get(), false));
    }

    /** Claims admitted at a held fence, without a trip to the store. */
    public long heldAdmissions() {
        return heldAdmissions.sum();
    }

    /**
     * The first of {@code claims} (the keys of one request) that the fences as they stand refuse,
     * below its fence or at a token granted to another holder, judged together before any of them
     * raises or names a fence, so that a request refused for one key changes no other key's
     * fence; empty when the fences refuse none. Raises and registers nothing. Blocks on the store.
     *
     * @throws FenceStoreUnavailableException when the store cannot answer
     */
    public Optional<FenceDecision> firstRefusal(List<FenceClaim> claims) {
        for (FenceClaim claim : claims) {
            Optional<FenceDecision> stale = knownStale(claim);
            if (stale.isPresent()) {
                return stale;
            }
        }
        Map<ResourceKey, Fence> fences = store.readAll(claims.stream().map(FenceClaim::resource).distinct().toList());
        for (FenceClaim claim : claims) {
            FenceDecision decision = FencePolicy.decide(Optional.ofNullable(fences.get(claim.resource())), claim);
            if (!(decision instanceof FenceDecision.Admitted)) {
                return Optional.of(decision);
            }
        }
        return Optional.empty();
    }

    /** Call after {@link InstanceFences#enter(FenceClaim)}. */
    public FenceDecision attempt(FenceClaim claim) {
        return attemptAll(List.of(claim)).get(0);
    }

    /**
     * Judges a batch of entered claims with one trip to the store, registering them first, in
     * the same commit as the batch's raises where the store can. When the registration fails,
     * every claim gets Unavailable: none may be judged unregistered.
     *
     * @throws FenceStoreUnavailableException when the store could judge none of them
     */
    public List<FenceDecision> attemptAll(List<FenceClaim> claims) {
        BatchRegistration registration = fences.register(claims);
        List<FenceDecision> judged;
        try {
            judged = store.admitAll(claims, registration);
        } catch (FenceStoreUnavailableException e) {
            // A raise may have committed with the rows: no hold from any read of this batch.
            fences.readFailed(claims);
            if (e.sent()) {
                announceIfRaised(claims);
            }
            return new ArrayList<>(Collections.nCopies(claims.size(), new FenceDecision.Unavailable(e.getMessage())));
        } catch (RuntimeException | Error e) {
            fences.readFailed(claims);
            throw e;
        }
        List<InstanceFences.Covered> covered = registration.covered();
        List<FenceDecision> decisions = new ArrayList<>(claims.size());
        List<ResourceKey> noneExpired = new ArrayList<>(claims.size());
        for (int i = 0; i < claims.size(); i++) {
            FenceDecision decision = judged.get(i);
            if (decision instanceof FenceDecision.Draining draining && draining.expiredHolder()) {
                decision = afterExpiredHolder(draining);
            } else if (!(decision instanceof FenceDecision.Unavailable)) {
                noneExpired.add(claims.get(i).resource());
            }
            if (decision instanceof FenceDecision.Admitted admitted) {
                decision = guardAgainstRegression(admitted);
            }
            decisions.add(fences.settle(claims.get(i), decision, covered.get(i), remembered));
        }
        // A grace left over from rows another instance removed must not shorten the next one.
        fences.noExpiredHolders(noneExpired);
        List<FenceClaim> unjudged = new ArrayList<>();
        for (int i = 0; i < claims.size(); i++) {
            if (judged.get(i) instanceof FenceDecision.Unavailable unavailable && unavailable.mayHaveRaised()) {
                unjudged.add(claims.get(i));
            }
        }
        if (!unjudged.isEmpty()) {
            // Raised or registered, then not judged: the read after the commit failed, or the commit came back with a warning.
            announceIfRaised(unjudged);
        }
        return decisions;
    }

    /**
     * Claims whose batch failed after its raises may have committed (its answer lost, or the read
     * after its commit): nobody was told of those raises, and an instance holding a fence below one
     * would go on admitting from memory under a fence that reads higher. They are asked once more,
     * as an admin raise is, without registering: the asking finds each fence at its claim's token
     * (or raises it there, as the first asking may have) and announces it to every instance
     * registered below it, and this instance stops holding below it. Its decisions admit nothing;
     * the claims stay unavailable, and a failure of this asking too leaves what the first one left.
     */
    private void announceIfRaised(List<FenceClaim> claims) {
        List<FenceDecision> asked;
        try {
            asked = store.admitAll(claims);
        } catch (FenceStoreUnavailableException stillUnavailable) {
            return; // the writers were told the check failed, and ask again
        }
        for (int i = 0; i < claims.size(); i++) {
            if (asked.get(i) instanceof FenceDecision.Admitted || asked.get(i) instanceof FenceDecision.Draining) {
                // The fence is at the claim's token: this instance holds nothing below it either,
                // and its own writes below it not yet sent stop, as after an admin raise.
                fences.raised(claims.get(i).resource(), claims.get(i).token().value());
            }
        }
    }

    /**
     * Another instance's registration expired without being withdrawn (it died, its row was
     * deleted, or the database clock jumped): it may still hold the fence. The raise was
     * announced; once that instance has had time to hear it, or to stop trusting its memory,
     * its expired rows are removed and the claim is judged again, with them gone. Judged again,
     * not admitted: a row its instance renewed meanwhile (late, after the clock jumped) is live
     * and is not removed, and a write under it may still be on its way to the store; the claim
     * then waits for it as for any live row. At an unnamed fence's token, a named claim also
     * names the fence there (first holder wins).
     */
    private FenceDecision afterExpiredHolder(FenceDecision.Draining draining) {
        ResourceKey resource = draining.claim().resource();
        if (fences.expiredHolderMayStillHold(resource, draining.claim().token().value())) {
            return draining;
        }
        try {
            store.forgetExpiredRegistrations(resource);
            fences.expiredHolderGraceServed(resource);
            return store.admit(draining.claim());
        } catch (FenceStoreUnavailableException e) {
            return new FenceDecision.Unavailable(e.getMessage());
        }
    }

    /**
     * Raises the fence of {@code resource} to {@code token}, or leaves it where it is when it is
     * that high already; for an operator, and for the regression guard. This instance stops
     * holding the old fence before and after the store's raise (a read under way meanwhile must
     * not bring it back), and the store announces the raise to every instance registered below
     * it, the only ones that may hold the old fence or still send below the new one. A raise that
     * failed may have committed all the same (its answer, or the read after its commit, was lost),
     * and then nobody was told: it is asked once more, which finds the fence at the token and
     * announces it as any raise.
     *
     * @throws FenceStoreUnavailableException when the store cannot answer
     */
    public FenceDecision raise(ResourceKey resource, FencingToken token) {
        fences.raised(resource, token.value());
        FenceClaim claim = new FenceClaim(resource, token, Optional.empty());
        FenceDecision decision;
        try {
            decision = store.admit(claim);
        } catch (FenceStoreUnavailableException failed) {
            try {
                decision = store.admit(claim);
            } catch (FenceStoreUnavailableException again) {
                throw new FenceStoreUnavailableException(failed.getMessage() + "; asked again: " + again.getMessage()
                        + "; the raise may have been applied all the same: repeat it", again);
            }
            if (decision instanceof FenceDecision.Admitted admitted) {
                // The fence it found may be the one the first asking wrote: what that replaced is not known here.
                decision = new FenceDecision.Admitted(admitted.claim(), Optional.empty());
            }
        }
        if (decision instanceof FenceDecision.Draining draining && draining.expiredHolder()) {
            // As for a write's raise: an instance that died (or lost its row) drains nothing once
            // it has had the grace to hear of the raise; its rows go, or the raise never settles.
            decision = afterExpiredHolder(draining);
            if (decision instanceof FenceDecision.Admitted admitted) {
                // The fence it found is the one this raise already wrote: what it replaced is not known here.
                decision = new FenceDecision.Admitted(admitted.claim(), Optional.empty());
            }
        }
        fences.raised(resource, token.value());
        if (decision instanceof FenceDecision.Admitted || decision instanceof FenceDecision.Draining) {
            // The fence is at the token now: a lower token is refused from memory naming it.
            remembered.raisedHere(resource, token.value());
        }
        return decision;
    }

    /** Whether a write this instance admitted below {@code token} may still reach the store. */
    public boolean writesBelowInFlight(ResourceKey resource, FencingToken token) {
        return fences.inFlightBelow(resource, token.value());
    }

    /**
     * The store admitted a token below a fence this instance confirmed before (admitted, raised, or
     * read through its own connection): it lost the fence (a failover to a replica that missed
     * commits, a restore). Refuse, say so loudly, and put the fence back up. Below one this
     * instance only heard of (a notice that came while the claim was judged, or that no gateway
     * sent), refuse it too, but the store lost nothing this instance knows of, and a notice is not
     * written back: any role that may connect can send one.
     */
    private FenceDecision guardAgainstRegression(FenceDecision.Admitted admitted) {
        FenceClaim claim = admitted.claim();
        OptionalLong highest = remembered.confirmed(claim.resource());
        if (highest.isEmpty() || claim.token().value() >= highest.getAsLong()) {
            OptionalLong heard = remembered.highest(claim.resource());
            if (heard.isEmpty() || claim.token().value() >= heard.getAsLong()) {
                return admitted;
            }
            log.warn("Refusing token {} for {}, which the fence store admitted: this instance heard of a raise to {} while it"
                    + " was judged (a notice of a raise that committed after the read began, or one no gateway sent)",
                    claim.token(), claim.resource(), heard.getAsLong());
            // The store admitted the claim through this instance's own connection: its fence is at least there.
            remembered.readAt(claim.resource(), claim.token().value());
            return new FenceDecision.Stale(claim, rememberedFence(claim, heard.getAsLong()), true);
        }
        log.error("FENCE REGRESSION for {}: the fence store held {} but this instance admitted {} before; "
                        + "refusing token {} and raising the fence back to {}", claim.resource(),
                admitted.previous().map(Object::toString).orElse("no fence"), highest.getAsLong(), claim.token(),
                highest.getAsLong());
        regressionSeen.accept(claim);
        raise(claim.resource(), new FencingToken(highest.getAsLong()));
        return new FenceDecision.Stale(claim, rememberedFence(claim, highest.getAsLong()));
    }

    private static Fence rememberedFence(FenceClaim claim, long token) {
        return new Fence(claim.resource(), new FencingToken(token), Optional.empty());
    }
}
