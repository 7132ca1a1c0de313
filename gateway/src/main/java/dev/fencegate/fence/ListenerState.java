package dev.fencegate.fence;

/**
 * Whether this instance's listener hears raises, and how recently it confirmed that it does. Not
 * thread-safe: only {@link InstanceFences} uses it, under its lock.
 */
final class ListenerState {

    private long confirmedNanos;
    private boolean confirmed;
    private long losses;
    /**
     * Times a listening connection was lost, confirmed or not, or a new one started listening. A
     * row write under way across either may have been undone meanwhile (a row deleted by hand) with
     * nobody to hear it: across a loss, after the loss; across a start, before it.
     */
    private long turns;
    /** The listener's connection has run LISTEN and has not been lost since. */
    private boolean listening;

    void listening() {
        listening = true;
        turns++;
    }

    /** Every notice sent before {@code sinceNanos} has been delivered. */
    void confirmed(long sinceNanos) {
        confirmedNanos = sinceNanos;
        confirmed = true;
    }

    /**
     * The listener's connection is gone, or an attempt to listen failed. Returns whether a
     * listening connection was lost: the writes admitted so far are then to stop going out.
     */
    boolean lost() {
        if (confirmed) {
            losses++;
        }
        boolean wasListening = listening;
        listening = false;
        if (wasListening) {
            turns++;
        }
        confirmed = false;
        return wasListening;
    }

    /** How many times a confirmed listener was lost. */
    long losses() {
        return losses;
    }

    /** How many times a listening connection was lost, confirmed or not, or a new one started listening. */
    long turns() {
        return turns;
    }

    /** Whether the listener confirmed within {@link InstanceFences#LISTENER_FRESH} before {@code now}. */
    boolean fresh(long now) {
        return confirmed && now - confirmedNanos < InstanceFences.LISTENER_FRESH.toNanos();
    }
}
