package dev.fencegate.client;

/**
 * The local monotonic clock the guard measures a lease by. Only intervals are read from it, never
 * the time of day, so a wall clock stepped by NTP cannot stretch a lease; tests inject a fake one.
 */
@FunctionalInterface
public interface Ticker {

    long nanos();

    static Ticker system() {
        return System::nanoTime;
    }
}
