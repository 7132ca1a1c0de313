package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.testing.ObjectSpellings;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Generated keys, each spelled many ways: every spelling a client may send names the key's one
 * resource under every store kind, and every spelling stores read differently is refused; under
 * {@code s3-virtual-host}, where Ozone decodes a path twice, a key holding '%' and two hexadecimal
 * digits is refused however it is spelled, and is a key like any other in a DeleteObjects body.
 * Seeded: the seed is printed, and FENCEGATE_SEED replays it.
 */
class StoreIdentitySpellingsTest {

    private static final long SEED = seed();
    /** A '%' and two hexadecimal digits in a decoded key: what a second decoding turns into another character. */
    private static final Pattern DECODED_AGAIN = Pattern.compile("%[0-9A-Fa-f]{2}");
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
        boolean decodedAgainIsAnother = DECODED_AGAIN.matcher(key).find();

        for (StoreIdentity kind : KINDS) {
            String sdk = "/b/" + ObjectSpellings.sdkEncoded(key);
            boolean refusedAsDecodedAgain = decodedAgainIsAnother && kind instanceof S3VirtualHostIdentity;
            assertThat(kind.identify("PUT", sdk, "localhost", null)).as("%s %s", kind.kind(), sdk)
                    .isEqualTo(refusedAsDecodedAgain ? kind.identify("PUT", sdk, "localhost", null)
                            : new StoreIdentity.Identified.Resource(resource))
                    .isInstanceOf(refusedAsDecodedAgain ? StoreIdentity.Identified.Refused.class : StoreIdentity.Identified.Resource.class);
            assertThat(kind.keyInBucket("/b", key)).as("%s DeleteObjects key %s", kind.kind(), key)
                    .isEqualTo(new StoreIdentity.Identified.Resource(resource));
            for (int i = 0; i < 10; i++) {
                String alias = "/b/" + spellings.alias(key);
                String ambiguous = "/b/" + spellings.ambiguous(key);
                assertThat(kind.identify("DELETE", alias, "localhost:9000", null)).as("%s %s, key %s", kind.kind(), alias, key)
                        .isEqualTo(refusedAsDecodedAgain ? kind.identify("DELETE", alias, "localhost:9000", null)
                                : new StoreIdentity.Identified.Resource(resource))
                        .isInstanceOf(refusedAsDecodedAgain ? StoreIdentity.Identified.Refused.class
                                : StoreIdentity.Identified.Resource.class);
                assertThat(kind.identify("PUT", ambiguous, "localhost", null)).as("%s %s, key %s", kind.kind(), ambiguous, key)
                        .isInstanceOf(StoreIdentity.Identified.Refused.class);
            }
        }
        String subdomain = "/" + spellings.alias(key);
        Class<?> expected = decodedAgainIsAnother ? StoreIdentity.Identified.Refused.class : StoreIdentity.Identified.Resource.class;
        assertThat(KINDS.get(3).identify("PUT", subdomain, "b.localhost", null)).isInstanceOf(expected);
        assertThat(KINDS.get(3).identify("PUT", subdomain + "/", "b", null)).isInstanceOf(expected);
        if (!decodedAgainIsAnother) {
            assertThat(KINDS.get(3).identify("PUT", subdomain, "b.localhost", null)).isEqualTo(new StoreIdentity.Identified.Resource(resource));
            assertThat(KINDS.get(3).identify("PUT", subdomain + "/", "b", null)).isEqualTo(new StoreIdentity.Identified.Resource(resource));
        }
    }
}
