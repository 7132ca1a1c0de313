package dev.fencegate.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.StoreKind;
import dev.fencegate.testing.ObjectSpellings;
import dev.fencegate.testing.ObjectSpellings.Spelling;
import dev.fencegate.testing.NoNettyLeaks;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One object, one fence, checked against real stores: an object is fenced at token 10 through
 * one spelling, then generated spellings and addressings of it (percent-escapes in either case,
 * sub-delimiters raw or encoded, non-ASCII, trailing slashes, Hosts naming the bucket, WebDAV
 * collection and copy methods) are sent with token 5. The store's whole content must not change
 * and the gateway must answer 412 for a true alias, 400 for a spelling stores read differently.
 * Then a fresh write through another spelling must change exactly that object, and its fence.
 * nginx stands behind both --store-kind webdav and http, S3Proxy behind s3-path and s3-virtual-host.
 * Under s3-virtual-host a key holding '%' and two hexadecimal digits is refused in every spelling.
 * Seeded: the seed is printed, and FENCEGATE_SEED replays it.
 */
@ExtendWith(NoNettyLeaks.class)
class IdentityDifferentialIT {

    private static final long SEED = seed();
    private static final int CASES_PER_KIND = 12;
    /** A '%' and two hexadecimal digits in a decoded key, which a store decoding the path twice reads as another character. */
    private static final Pattern DECODED_AGAIN = Pattern.compile("%[0-9A-Fa-f]{2}");
    private static final Map<StoreKind, IdentityRig> RIGS = new EnumMap<>(StoreKind.class);

    private static long seed() {
        String given = System.getenv("FENCEGATE_SEED");
        long seed = given == null ? System.nanoTime() : Long.parseLong(given);
        System.out.println("IdentityDifferentialIT seed " + seed + " (replay with FENCEGATE_SEED=" + seed + ")");
        return seed;
    }

    static Stream<Arguments> cases() {
        return Stream.of(StoreKind.WEBDAV, StoreKind.HTTP, StoreKind.S3_PATH, StoreKind.S3_VIRTUAL_HOST)
                .flatMap(kind -> IntStream.range(0, CASES_PER_KIND).mapToObj(i -> Arguments.of(kind, i, SEED + 1_000L * kind.ordinal() + i)));
    }

    @AfterAll
    static void stop() throws Exception {
        for (IdentityRig rig : RIGS.values()) {
            rig.close();
        }
    }

    @ParameterizedTest(name = "{0} case {1}, seed {2}")
    @MethodSource("cases")
    void theObjectTheStoreTouchesIsAlwaysTheOneWhoseFenceWasChecked(StoreKind kind, int index, long seed) {
        IdentityRig rig = RIGS.computeIfAbsent(kind, IdentityDifferentialIT::rig);
        ObjectSpellings spellings = new ObjectSpellings(seed);
        String key = spellings.key();
        String fence = ObjectSpellings.fenceKey(IdentityRig.BUCKET, key);
        String current = "v10-" + seed;
        String what = "key '" + key + "', seed " + seed;

        if (kind == StoreKind.S3_VIRTUAL_HOST && DECODED_AGAIN.matcher(key).find()) {
            // Ozone decodes a virtual-host path twice, to another key: every spelling is refused, and the store keeps nothing.
            Map<String, String> before = rig.objects();
            Spelling fresh = freshSpelling(rig.kind, spellings, key);
            assertThat(rig.send("PUT", fresh.target(), fresh.host(), 10, "v10-" + seed, ""))
                    .as("write via %s Host %s, %s", fresh.target(), fresh.host(), what).isEqualTo(400);
            assertThat(rig.objects()).as("store after a refused write, %s", what).isEqualTo(before);
            return;
        }

        assertThat(rig.send("PUT", "/" + IdentityRig.BUCKET + "/" + ObjectSpellings.sdkEncoded(key), "localhost", 10, current, ""))
                .as("fencing write, %s", what).isBetween(200, 299);
        Map<String, String> before = rig.objects();
        String file = only(before, current, what);
        assertThat(rig.fenceRow(fence)).as("fence of %s", what).isEqualTo(10);

        for (Spelling stale : staleSpellings(rig.kind, spellings, key)) {
            String method = stale.staleStatus() == 405 ? stale.description() : spellings.nextInt(2) == 0 ? "PUT" : "DELETE";
            String headers = stale.staleStatus() == 405 ? "Destination: http://" + stale.host() + "/" + IdentityRig.BUCKET + "/elsewhere\r\n" : "";
            int status = rig.send(method, stale.target(), stale.host(), 5, method.equals("PUT") ? "stale" : "", headers);
            assertThat(status).as("%s %s Host %s (%s), %s", method, stale.target(), stale.host(), stale.description(), what)
                    .isEqualTo(stale.staleStatus());
            assertThat(rig.objects()).as("store after %s %s Host %s, %s", method, stale.target(), stale.host(), what).isEqualTo(before);
        }

        Spelling fresh = freshSpelling(rig.kind, spellings, key);
        String next = "v11-" + seed;
        assertThat(rig.send("PUT", fresh.target(), fresh.host(), 11, next, ""))
                .as("fresh write via %s Host %s, %s", fresh.target(), fresh.host(), what).isBetween(200, 299);
        Map<String, String> expected = new TreeMap<>(before);
        expected.put(file, next);
        assertThat(rig.objects()).as("only %s changed, %s", file, what).isEqualTo(expected);
        assertThat(rig.fenceRow(fence)).as("fence of %s", what).isEqualTo(11);

        expected.remove(file);
        if (rig.kind == StoreKind.WEBDAV || rig.kind == StoreKind.HTTP) {
            Spelling delete = freshSpelling(rig.kind, spellings, key);
            assertThat(rig.send("DELETE", delete.target(), delete.host(), 12, "", "")).as("delete, %s", what).isBetween(200, 299);
        } else {
            deleteObjects(rig, spellings, key, what);
        }
        assertThat(rig.objects()).as("only %s deleted, %s", file, what).isEqualTo(expected);
    }

    /** A stale DeleteObjects naming the key is refused and deletes nothing; a fresh one deletes just it. */
    private static void deleteObjects(IdentityRig rig, ObjectSpellings spellings, String key, String what) {
        Map<String, String> before = rig.objects();
        boolean byHost = rig.kind == StoreKind.S3_VIRTUAL_HOST && spellings.nextInt(2) == 0;
        String target = byHost ? "/?delete" : "/" + IdentityRig.BUCKET + "?delete";
        String host = byHost ? IdentityRig.BUCKET + ".localhost" : "localhost";
        String body = "<Delete><Object><Key>" + xmlText(key) + "</Key></Object></Delete>";
        String md5 = "Content-MD5: " + md5(body) + "\r\n";

        // Stores differ on trimming key text, so a key with blank edges is refused in a DeleteObjects body.
        boolean blankEdged = Character.isWhitespace(key.charAt(0)) || Character.isWhitespace(key.charAt(key.length() - 1));
        assertThat(rig.send("POST", target, host, 5, body, md5)).as("stale DeleteObjects, %s", what).isEqualTo(blankEdged ? 400 : 412);
        assertThat(rig.objects()).as("after a stale DeleteObjects, %s", what).isEqualTo(before);
        if (blankEdged) {
            assertThat(rig.send("DELETE", "/" + IdentityRig.BUCKET + "/" + spellings.alias(key), "localhost", 12, "", ""))
                    .as("delete, %s", what).isBetween(200, 299);
        } else {
            assertThat(rig.send("POST", target, host, 12, body, md5)).as("DeleteObjects, %s", what).isEqualTo(200);
        }
    }

    private static List<Spelling> staleSpellings(StoreKind kind, ObjectSpellings spellings, String key) {
        String bucket = IdentityRig.BUCKET;
        List<Spelling> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // In front of virtual hosting an IP address Host is refused (S3Proxy reads it as a bucket).
            String host = kind == StoreKind.S3_VIRTUAL_HOST ? "localhost" : pick(spellings, "localhost", "127.0.0.1");
            all.add(new Spelling("alias", "/" + bucket + "/" + spellings.alias(key), host, 412));
            all.add(new Spelling("ambiguous", "/" + bucket + "/" + spellings.ambiguous(key), "localhost", 400));
        }
        String trailing = "/" + bucket + "/" + spellings.alias(key) + "/";
        switch (kind) {
            case WEBDAV, HTTP -> {
                all.add(new Spelling("any Host", "/" + bucket + "/" + spellings.alias(key), "store.example", 412));
                all.add(new Spelling("collection", trailing, "localhost", 400));
                int slash = key.indexOf('/');
                if (slash > 0) {
                    String parent = "/" + bucket + "/" + spellings.alias(key.substring(0, slash));
                    all.add(new Spelling("parent collection", parent + "/", "localhost", 400));
                    // Without its slash a collection is another resource: nginx itself refuses to write or delete it.
                    all.add(new Spelling("parent collection without its slash", parent, "localhost", 409));
                }
                all.add(new Spelling("MOVE", "/" + bucket + "/" + spellings.alias(key), "localhost", 405));
                all.add(new Spelling("COPY", "/" + bucket + "/" + spellings.alias(key), "localhost", 405));
                all.add(new Spelling("MKCOL", trailing, "localhost", 405));
            }
            case S3_PATH -> {
                all.add(new Spelling("trailing slash, which S3Proxy resolves to the object", trailing, "localhost", 412));
                all.add(new Spelling("Host under the store's domain", "/" + spellings.alias(key), bucket + ".localhost", 400));
                all.add(new Spelling("any other Host", "/" + bucket + "/" + spellings.alias(key), "store.example", 412));
            }
            case S3_VIRTUAL_HOST -> {
                all.add(new Spelling("trailing slash, which S3Proxy resolves to the object", trailing, "localhost", 412));
                all.add(new Spelling("bucket named by a subdomain", "/" + spellings.alias(key), bucket + ".localhost", 412));
                all.add(new Spelling("bucket named CNAME-style", "/" + spellings.alias(key), bucket, 412));
                all.add(new Spelling("subdomain, trailing slash", "/" + spellings.alias(key) + "/", bucket + ".localhost", 412));
                all.add(new Spelling("upper-case Host", "/" + spellings.alias(key), "IDENT.localhost", 400));
                all.add(new Spelling("IP address Host", "/" + bucket + "/" + spellings.alias(key), "127.0.0.1", 400));
            }
            default -> throw new IllegalArgumentException(kind.value());
        }
        return all;
    }

    private static Spelling freshSpelling(StoreKind kind, ObjectSpellings spellings, String key) {
        String pathStyle = "/" + IdentityRig.BUCKET + "/" + spellings.alias(key);
        if (kind == StoreKind.S3_VIRTUAL_HOST) {
            return switch (spellings.nextInt(3)) {
                case 0 -> new Spelling("subdomain", "/" + spellings.alias(key), IdentityRig.BUCKET + ".localhost", 0);
                case 1 -> new Spelling("CNAME", "/" + spellings.alias(key), IdentityRig.BUCKET, 0);
                default -> new Spelling("path-style", pathStyle, "localhost", 0);
            };
        }
        return new Spelling("path-style", pathStyle, pick(spellings, "localhost", "127.0.0.1"), 0);
    }

    private static IdentityRig rig(StoreKind kind) {
        return switch (kind) {
            case WEBDAV, HTTP -> IdentityRig.nginx(kind);
            case S3_PATH -> IdentityRig.s3(false);
            case S3_VIRTUAL_HOST -> IdentityRig.s3(true);
        };
    }

    private static String only(Map<String, String> objects, String content, String what) {
        List<String> holding = objects.entrySet().stream().filter(e -> e.getValue().equals(content)).map(Map.Entry::getKey).toList();
        assertThat(holding).as("files holding the fencing write, %s", what).hasSize(1);
        return holding.get(0);
    }

    private static String pick(ObjectSpellings spellings, String... choices) {
        return choices[spellings.nextInt(choices.length)];
    }

    /** Markup characters and non-ASCII as character references: the raw request is sent as ASCII. */
    private static String xmlText(String key) {
        StringBuilder text = new StringBuilder();
        key.codePoints().forEach(c -> text.append(c < 0x80 && "&<>\"'".indexOf(c) < 0 ? String.valueOf((char) c) : "&#x" + Integer.toHexString(c) + ";"));
        return text.toString();
    }

    private static String md5(String body) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
