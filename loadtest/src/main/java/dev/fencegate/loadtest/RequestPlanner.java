package dev.fencegate.loadtest;

import java.util.BitSet;
import java.util.random.RandomGenerator;

/**
 * Plans the requests of one connection. Connection {@code c} of {@code n} owns resources
 * {@code c, c+n, c+2n, ...}, so a resource's writes travel in order on one connection and a
 * bumped token cannot overtake its predecessor and turn it stale. A stale write goes only to
 * a resource this connection has already written with its current token: before its first
 * write a resource has no fence, and any token is admitted. New objects are named by the book,
 * never twice, and carry its token base; new objects under a job carry the job's token.
 */
final class RequestPlanner {
    /** Of {@link TokenPattern#MIXED} writes: raises, then new objects; the rest carry the current token. */
    static final double MIXED_RAISES = 0.01;
    static final double MIXED_NEW_OBJECTS = 0.09;

    private final TokenBook book;
    private final TokenPattern pattern;
    private final double share;
    private final boolean reads;
    private final RandomGenerator random;
    private final int first;
    private final int step;
    private final BitSet written = new BitSet();
    private int cursor;

    RequestPlanner(TokenBook book, TokenPattern pattern, double share, boolean reads,
                   RandomGenerator random, int connection, int connections) {
        this.book = book;
        this.pattern = pattern;
        this.share = share;
        this.reads = reads;
        this.random = random;
        boolean ownSlice = pattern != TokenPattern.HOT && book.resources() >= connections;
        this.first = pattern == TokenPattern.HOT ? 0 : connection % book.resources();
        this.step = ownSlice ? connections : book.resources();
        this.cursor = first;
    }

    PlannedRequest next() {
        if (reads) {
            return PlannedRequest.read(book.path(nextResource()));
        }
        return switch (pattern) {
            case STEADY, HOT -> current(nextResource());
            case BUMPS -> random.nextDouble() < share ? raise(nextResource()) : current(nextResource());
            case STALE -> stale(nextResource());
            case NEW_OBJECTS -> newObject();
            case RAISES -> raise(nextResource());
            case MIXED -> mixed(random.nextDouble());
            case JOB_OBJECTS -> jobObject(nextResource());
        };
    }

    private PlannedRequest mixed(double draw) {
        if (draw < MIXED_RAISES) {
            return raise(nextResource());
        }
        return draw < MIXED_RAISES + MIXED_NEW_OBJECTS ? newObject() : current(nextResource());
    }

    private PlannedRequest stale(int resource) {
        return random.nextDouble() < share && written.get(resource)
                ? new PlannedRequest(book.path(resource), book.current(resource) - 1, true)
                : current(resource);
    }

    private PlannedRequest current(int resource) {
        written.set(resource);
        return new PlannedRequest(book.path(resource), book.current(resource), false);
    }

    private PlannedRequest raise(int resource) {
        return new PlannedRequest(book.path(resource), book.bump(resource), false);
    }

    private PlannedRequest jobObject(int job) {
        return new PlannedRequest(book.newObjectPathUnder(job), book.current(job), false);
    }

    private PlannedRequest newObject() {
        return new PlannedRequest(book.newObjectPath(), book.base(), false);
    }

    private int nextResource() {
        int resource = cursor;
        int following = cursor + step;
        cursor = following < book.resources() ? following : first;
        return resource;
    }
}
