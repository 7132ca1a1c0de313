package dev.fencegate.fence;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Until when a raise here waits for another instance whose registration it found expired, not
 * withdrawn: that instance may still hold the fence without knowing. Not thread-safe: only
 * {@link InstanceFences} uses it, under its lock.
 */
final class ExpiredHolderGraces {

    /** How long a grace is remembered after it ran out. */
    static final long MEMORY_NANOS = Duration.ofSeconds(60).toNanos();

    private final Map<ResourceKey, Grace> graces = new HashMap<>();

    /** A grace for another instance's expired rows: until when, for the raise to which token. */
    private record Grace(long untilNanos, long token) {
    }

    /**
     * True until the other instance has had {@link InstanceFences#EXPIRED_HOLDER_GRACE} to hear of
     * a raise to {@code token} or higher, counted from the first time this instance found it for
     * such a raise: a grace served for a lower raise does not cover a higher one, whose notice the
     * other instance has not had the time to hear.
     */
    boolean mayStillHold(ResourceKey resource, long token, long now) {
        Grace grace = graces.get(resource);
        if (grace == null || grace.token() < token) {
            graces.put(resource, new Grace(now + InstanceFences.EXPIRED_HOLDER_GRACE.toNanos(), token));
            return true;
        }
        return now - grace.untilNanos() < 0;
    }

    /** When the grace of {@code resource} began: the first time a raise found the row expired. Call after {@link #mayStillHold}. */
    long startedNanos(ResourceKey resource) {
        return graces.get(resource).untilNanos() - InstanceFences.EXPIRED_HOLDER_GRACE.toNanos();
    }

    /** The grace of {@code resource} is over: a row found expired later gets a grace of its own. */
    void served(ResourceKey resource) {
        graces.remove(resource);
    }

    void servedAll(List<ResourceKey> resources) {
        if (!graces.isEmpty()) {
            resources.forEach(graces::remove);
        }
    }

    void forgetOld(long now) {
        graces.values().removeIf(grace -> now - grace.untilNanos() > MEMORY_NANOS);
    }

    int size() {
        return graces.size();
    }
}
