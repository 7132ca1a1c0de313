package dev.fencegate.loadtest;

/** What one request carries: its path and, for a write, its token. */
record PlannedRequest(String path, long token, boolean expectStale) {

    static final long NO_TOKEN = -1;

    static PlannedRequest read(String path) {
        return new PlannedRequest(path, NO_TOKEN, false);
    }

    boolean hasToken() {
        return token != NO_TOKEN;
    }
}
