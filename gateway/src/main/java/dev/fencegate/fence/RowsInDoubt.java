package dev.fencegate.fence;

import java.util.HashMap;
import java.util.Map;

/**
 * Rows a write may have committed without this instance learning it (its connection was lost as
 * it committed): their generation is unknown, so no withdrawal could name them, and other
 * instances' raises would wait on them until they expired. The next sweep writes them again,
 * which tells it, and they are withdrawn as any other once idle. At most {@link #MOST}: past
 * that, a row in doubt is left to expire. Not thread-safe: only {@link InstanceFences} uses it,
 * under its lock.
 */
final class RowsInDoubt {

    static final int MOST = 65_536;
    /** How many rows in doubt one sweep writes again, in a statement of their own. */
    private static final int PER_SWEEP = 4_096;

    private final Map<ResourceKey, Row> rows = new HashMap<>();
    /** Tells each entry from the one it replaced. */
    private long serial;

    /**
     * The lowest token a row in doubt may cover, when the last write that may have left it (or
     * extended it) failed, and which entry this is (one put in doubt again is another).
     */
    record Row(long minToken, long sinceNanos, long serial) {
    }

    void add(Map<ResourceKey, Long> minTokens, long now) {
        for (Map.Entry<ResourceKey, Long> row : minTokens.entrySet()) {
            if (rows.size() >= MOST && !rows.containsKey(row.getKey())) {
                continue;
            }
            // Each write that may have committed may also have made the row last longer: counted from the last.
            rows.merge(row.getKey(), new Row(row.getValue(), now, ++serial),
                    (kept, next) -> new Row(Math.min(kept.minToken(), next.minToken()), next.sinceNanos(), next.serial()));
        }
    }

    /**
     * Forgets the rows in doubt longer than a row lasts ({@code rowNanos}: they have expired) and
     * returns this sweep's share of the others to write again.
     */
    Map<ResourceKey, Row> toWriteAgain(long now, long rowNanos) {
        rows.values().removeIf(row -> now - row.sinceNanos() > rowNanos);
        Map<ResourceKey, Row> next = new HashMap<>();
        for (Map.Entry<ResourceKey, Row> row : rows.entrySet()) {
            if (next.size() == PER_SWEEP) {
                break;
            }
            next.put(row.getKey(), row.getValue());
        }
        return next;
    }

    /** These rows were written again: known now, unless another write put one in doubt again meanwhile. */
    void writtenAgain(Map<ResourceKey, Row> written) {
        written.forEach(rows::remove);
    }

    int size() {
        return rows.size();
    }
}
