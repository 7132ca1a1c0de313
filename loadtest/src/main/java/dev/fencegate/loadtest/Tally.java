package dev.fencegate.loadtest;

/** Mutable outcome counters of one shard; merged into {@link Counts} at the end of a run. */
final class Tally {
    final long[] statusClasses = new long[6];
    long expectedRefusals;
    long unexpectedRefusals;
    long staleAdmitted;
    long readsNotFound;
    long transportErrors;
    long timeouts;
    long unfinished;
    long warmupAnswered;

    void countAnswer(int status, boolean expectStale) {
        countAnswer(status, expectStale, false);
    }

    void countAnswer(int status, boolean expectStale, boolean read) {
        statusClasses[Math.min(5, Math.max(0, status / 100))]++;
        if (read && status == 404) {
            readsNotFound++;
        }
        boolean refused = status == 412;
        boolean admitted = status >= 200 && status < 300;
        if (refused && expectStale) {
            expectedRefusals++;
        } else if (refused) {
            unexpectedRefusals++;
        } else if (admitted && expectStale) {
            staleAdmitted++;
        }
    }

    void add(Tally other) {
        for (int i = 0; i < statusClasses.length; i++) {
            statusClasses[i] += other.statusClasses[i];
        }
        expectedRefusals += other.expectedRefusals;
        unexpectedRefusals += other.unexpectedRefusals;
        staleAdmitted += other.staleAdmitted;
        readsNotFound += other.readsNotFound;
        transportErrors += other.transportErrors;
        timeouts += other.timeouts;
        unfinished += other.unfinished;
        warmupAnswered += other.warmupAnswered;
    }

    Counts toCounts() {
        return new Counts(statusClasses[1], statusClasses[2], statusClasses[3], statusClasses[4],
                statusClasses[5], expectedRefusals, unexpectedRefusals, staleAdmitted, readsNotFound,
                transportErrors, timeouts, unfinished, warmupAnswered);
    }
}
