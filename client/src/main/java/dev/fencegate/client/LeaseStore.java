package dev.fencegate.client;

import java.time.Duration;
import java.util.Optional;

/**
 * A lease service that hands out fencing tokens. Plug in your own by implementing this; the
 * contract is that of {@link PostgresLeaseStore}: each grant's token is above every earlier
 * grant's for that name, a lease is granted only when free or expired by the service's own clock,
 * and only the holder of the current grant renews or releases it. Every method throws
 * {@link LeaseStoreException} when the service cannot answer, and the call's outcome is then
 * unknown: an acquire may have granted (the grant then stands until it expires), a renewal may
 * have extended. A holder may try a renewal again, as {@link HeldLease} does, but counts on the
 * lease only until the local deadline of the last renewal that got through.
 */
public interface LeaseStore {

    /** A new grant to {@code holder}, or empty while someone else holds an unexpired grant. */
    Optional<Lease> acquire(String name, String holder, Duration ttl);

    /** Extends {@code lease} by {@code ttl} from now; false when it expired or was granted to another. */
    boolean renew(Lease lease, Duration ttl);

    /** Frees {@code lease} for the next acquirer; false when it was no longer this holder's grant. */
    boolean release(Lease lease);
}
