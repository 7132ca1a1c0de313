package dev.fencegate.client;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Looks up the host a write goes to before its lease is checked. The HTTP clients look the name up
 * only when they connect, after the check, and no connect timeout bounds the lookup: a resolver
 * that takes seconds would send a write checked in time after the lease ran out. Looked up first,
 * the name is in the JVM's address cache (30 s by default) when the client connects.
 */
@FunctionalInterface
interface NameLookup {

    /** The JVM's own lookup; a name that does not resolve is left for the connection to report. */
    NameLookup SYSTEM = host -> {
        try {
            InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            // The client's connection fails on it the same way, and says so.
        }
    };

    void lookUp(String host);

    /** Looks {@code host} up, unless there is none to look up. */
    default void before(String host) {
        if (host != null && !host.isEmpty()) {
            lookUp(host);
        }
    }
}
