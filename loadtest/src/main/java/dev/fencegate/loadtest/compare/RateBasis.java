package dev.fencegate.loadtest.compare;

/** What the fixed offered rates are fractions of, per store. */
public enum RateBasis {
    /** The lowest saturation throughput among the store's targets: every target stays under its limit. */
    SLOWEST,
    /** The store's direct saturation throughput: proxied targets may be driven past their limit. */
    DIRECT
}
