package dev.fencegate.nemesis;

/**
 * One write as its worker saw it; times are {@link System#nanoTime()}.
 *
 * @param status the status answered, or {@link Wire#NO_ANSWER}
 */
record Sent(String id, String path, long token, Kind kind, int gateway, int status, long sentNanos, long answeredNanos) {

    /** What the worker meant by the write. */
    enum Kind {
        /** The current holder writing again with its token. */
        CURRENT,
        /** A new holder's first write, with a token above every one before. */
        RAISED,
        /** A holder that lost its lease, below the current token. */
        STALE,
        /** The current holder, slow to send its body after the head. */
        LATE_BODY
    }

    boolean acknowledged() {
        return status / 100 == 2;
    }

    /**
     * Answered "not done": refused by the gateway, or given up before it reached the store. A 502
     * or 504 may come after bytes went out, so its outcome is unknown, like no answer at all.
     */
    boolean refused() {
        return status >= 400 && status != 502 && status != 504;
    }
}
