package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.ObjectSpellings;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Generated keys, each spelled many ways: every spelling a client may send names the key's one
 * resource under every store kind, and every spelling stores read differently is refused.
 * Seeded: the seed is printed, and FENCEGATE_SEED replays it.
 */
class StoreIdentitySpellingsTest {

    private static final long SEED = seed();
    private static final VirtualHosts DOMAINS = new VirtualHosts(List.of("localhost"));
    private static final List<StoreIdentity> KINDS = List.of(new GenericHttpIdentity(), new WebDavIdentity(),
            new S3PathIdentity(DOMAINS), new S3VirtualHostIdentity(DOMAINS));

    private static long seed() {
        String given = System.getenv("FENCEGATE_SEED");
        long seed = given == null ? System.nanoTime() : Long.parseLong(given);
        System.out.println("StoreIdentitySpellingsTest seed " + seed + " (replay with FENCEGATE_SEED=" + seed + ")");
        return seed;
    }

    static Stream<Long> seeds() {
        return LongStream.range(0, 200).mapToObj(i -> SEED + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everySpellingOfAKeyNamesItsOneResourceAndAmbiguousOnesAreRefused(long seed) {
        ObjectSpellings spellings = new ObjectSpellings(seed);
        String key = spellings.key();
        ResourceKey resource = new ResourceKey(ObjectSpellings.fenceKey("b", key));

        for (StoreIdentity kind : KINDS) {
            String sdk = "/b/" + ObjectSpellings.sdkEncoded(key);
            assertThat(kind.identify("PUT", sdk, "localhost", null)).as("%s %s", kind.kind(), sdk)
                    .isEqualTo(new StoreIdentity.Identified.Resource(resource));
            assertThat(kind.keyInBucket("/b", key)).as("%s DeleteObjects key %s", kind.kind(), key)
                    .isEqualTo(new StoreIdentity.Identified.Resource(resource));
            for (int i = 0; i < 10; i++) {
                String alias = "/b/" + spellings.alias(key);
                String ambiguous = "/b/" + spellings.ambiguous(key);
                assertThat(kind.identify("DELETE", alias, "localhost:9000", null)).as("%s %s, key %s", kind.kind(), alias, key)
                        .isEqualTo(new StoreIdentity.Identified.Resource(resource));
                assertThat(kind.identify("PUT", ambiguous, "localhost", null)).as("%s %s, key %s", kind.kind(), ambiguous, key)
                        .isInstanceOf(StoreIdentity.Identified.Refused.class);
            }
        }
        String subdomain = "/" + spellings.alias(key);
        assertThat(KINDS.get(3).identify("PUT", subdomain, "b.localhost", null)).isEqualTo(new StoreIdentity.Identified.Resource(resource));
        assertThat(KINDS.get(3).identify("PUT", subdomain + "/", "b", null)).isEqualTo(new StoreIdentity.Identified.Resource(resource));
    }
}
