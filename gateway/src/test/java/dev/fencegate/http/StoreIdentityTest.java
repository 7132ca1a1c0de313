package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The README's identity table, row by row: each spelling and addressing, and the resource it is fenced under or its refusal. */
class StoreIdentityTest {

    private static final VirtualHosts DOMAINS = new VirtualHosts(List.of("s3.example", "localhost"));
    private static final Map<String, StoreIdentity> KINDS = Map.of(
            "http", new GenericHttpIdentity(),
            "webdav", new WebDavIdentity(),
            "s3-path", new S3PathIdentity(DOMAINS),
            "s3-virtual-host", new S3VirtualHostIdentity(DOMAINS));

    /**
     * A DeleteObjects request names its keys in the bucket its path starts with. Behind a path of
     * the upstream's, a store that is S3 reads its bucket from the path the gateway sends, which
     * starts with that path instead: the keys would be deleted in another bucket than the one fenced.
     */
    @Test
    void underHttpADeleteObjectsBehindAnUpstreamPathIsRefused() {
        StoreIdentity.Identified behindPath = new GenericHttpIdentity("/bkt", false).identify("POST", "/b?delete", "store", null);
        assertThat(behindPath).isInstanceOfSatisfying(StoreIdentity.Identified.Refused.class,
                refused -> assertThat(refused.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        assertThat(new GenericHttpIdentity("/bkt", false).identify("PUT", "/b/k", "store", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/b/k")));
        assertThat(new GenericHttpIdentity().identify("POST", "/b?delete", "store", null))
                .isInstanceOf(StoreIdentity.Identified.KeysInBody.class);
    }

    /**
     * An address listed as a domain means path-style only: a Host that ends in it is read by
     * S3Proxy as one bucket, the whole name, and by a store that takes the address as its base
     * domain as another, what comes before it; it is refused, not fenced as either.
     */
    @Test
    void aHostEndingInAnAddressListedAsADomainIsRefusedNotReadAsABucket() {
        StoreIdentity byAddress = new S3VirtualHostIdentity(new VirtualHosts(List.of("127.0.0.1", "localhost")));
        assertThat(byAddress.identify("PUT", "/bkt/k", "127.0.0.1:9000", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/bkt/k")));
        for (String host : new String[] {"bkt.127.0.0.1:9000", "bkt.127.0.0.1"}) {
            assertThat(byAddress.identify("PUT", "/k", host, null)).as(host)
                    .isInstanceOfSatisfying(StoreIdentity.Identified.Refused.class,
                            refused -> assertThat(refused.problem().outcome()).isEqualTo(Outcome.AMBIGUOUS_HOST));
        }
        assertThat(byAddress.identify("PUT", "/k", "bkt.localhost:9000", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/bkt/k")));
    }

    /**
     * {@code --allow-temporary-names}, for a store that keeps no files of its own among the objects:
     * a key ending in '-' and a UUID is an object of its own; S3Proxy's multipart and version names stay refused.
     */
    @Test
    void underAllowTemporaryNamesAKeyEndingInAUuidIsAnObjectOfItsOwn() {
        String key = "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e";
        for (StoreIdentity allowing : List.of(new S3PathIdentity(DOMAINS, true), new S3VirtualHostIdentity(DOMAINS, true),
                new GenericHttpIdentity("", true))) {
            assertThat(allowing.identify("PUT", key, "localhost", null)).as(allowing.kind())
                    .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey(key)));
            assertThat(allowing.identify("PUT", "/b/.mpus-abc-k-1", "localhost", null)).as(allowing.kind())
                    .isInstanceOf(StoreIdentity.Identified.Refused.class);
        }
        for (StoreIdentity allowing : List.of(new WebDavIdentity(true), new GenericHttpIdentity("", true))) {
            assertThat(allowing.identify("PUT", "/b/report.0000000008", "localhost", null)).as(allowing.kind())
                    .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/b/report.0000000008")));
            assertThat(allowing.identify("PUT", "/b/.davfs.tmpAb12Cd", "localhost", null)).as(allowing.kind())
                    .isInstanceOf(StoreIdentity.Identified.Refused.class);
        }
    }

    /**
     * Garage reads a bucket name of 64 hexadecimal digits, in either case, as a bucket's internal
     * id: a key under it is a second name for an object of the bucket with that id, fenced apart.
     */
    @Test
    void aKeyUnderABucketNamedByGaragesInternalIdIsRefused() {
        String id = "3fa1c0de".repeat(8);
        for (StoreIdentity identity : List.of(KINDS.get("s3-path"), KINDS.get("http"))) {
            for (String target : List.of("/" + id + "/report", "/" + id.toUpperCase() + "/d/report", "/" + id + "/" + id)) {
                assertThat(identity.identify("PUT", target, "localhost", null)).as(identity.kind() + " " + target)
                        .isInstanceOfSatisfying(StoreIdentity.Identified.Refused.class,
                                refused -> assertThat(refused.problem().detail()).contains("Garage"));
            }
            assertThat(identity.keyInBucket("/" + id, "report")).as(identity.kind())
                    .isInstanceOf(StoreIdentity.Identified.Refused.class);
        }
        assertThat(KINDS.get("s3-virtual-host").identify("PUT", "/report", id + ".s3.example", null))
                .isInstanceOf(StoreIdentity.Identified.Refused.class);
        assertThat(KINDS.get("s3-path").identify("PUT", "/" + id + "/report/", "localhost", null))
                .isInstanceOf(StoreIdentity.Identified.Refused.class);
        // One digit fewer or more, or a letter past 'f', is a bucket name like any other; so is the id alone, under http.
        for (String bucket : List.of(id.substring(1), id + "0", "g" + id.substring(1))) {
            assertThat(KINDS.get("s3-path").identify("PUT", "/" + bucket + "/report", "localhost", null)).as(bucket)
                    .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/" + bucket + "/report")));
        }
        assertThat(KINDS.get("http").identify("PUT", "/" + id, "store", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/" + id)));
        assertThat(KINDS.get("webdav").identify("PUT", "/" + id + "/report", "store", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/" + id + "/report")));
        // Behind an upstream path the store's bucket is the path's, whatever the client names.
        assertThat(new GenericHttpIdentity("/bkt", false).identify("PUT", "/" + id + "/report", "store", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/" + id + "/report")));
    }

    /**
     * Ozone's S3 gateway in virtual-host style decodes the path a second time: {@code /%2572eport}
     * is the key {@code %72eport} to every other store and {@code report} to it. A key that holds
     * '%' and two hexadecimal digits once decoded is refused under {@code s3-virtual-host}; a '%'
     * without them, and such a key in a DeleteObjects body (never decoded), are keys like any other.
     */
    @Test
    void underVirtualHostAKeyThatStillHoldsAnEscapeOnceDecodedIsRefused() {
        StoreIdentity virtualHost = KINDS.get("s3-virtual-host");
        for (String target : List.of("/%2572eport", "/d/a%252Fb", "/k%25e9", "/k%25A9%25")) {
            for (String host : List.of("b.s3.example", "s3.example")) {
                String path = host.equals("s3.example") ? "/b" + target : target;
                assertThat(virtualHost.identify("PUT", path, host, null)).as(host + " " + path)
                        .isInstanceOfSatisfying(StoreIdentity.Identified.Refused.class,
                                refused -> assertThat(refused.problem().outcome()).isEqualTo(Outcome.AMBIGUOUS_PATH));
            }
        }
        for (String key : List.of("/100%25.txt", "/a%25zz", "/a%25%C3%A9", "/a%25", "/a%254")) {
            assertThat(virtualHost.identify("PUT", key, "b.s3.example", null)).as(key)
                    .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/b" + key)));
        }
        assertThat(KINDS.get("s3-path").identify("PUT", "/b/%2572eport", "localhost", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/b/%2572eport")));
        assertThat(virtualHost.keyInBucket("/b", "%72eport"))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/b/%2572eport")));
    }

    /**
     * Under {@code http}, the store gets each path behind the one {@code --upstream} adds: an S3
     * store's own names are looked for there. Behind {@code /bkt}, the client's first segment is
     * the first of the key, where SeaweedFS keeps {@code .uploads}; at the root, it is the bucket.
     */
    @Test
    void underHttpStoreNamesAreLookedForWhereTheStoreReadsThem() {
        assertThat(new GenericHttpIdentity("/bkt", false).identify("PUT", "/.uploads/5e1f_0a1b", "store", null))
                .isInstanceOf(StoreIdentity.Identified.Refused.class);
        assertThat(new GenericHttpIdentity("/bkt", false).keyInBucket("/b", ".uploads/5e1f_0a1b"))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/b/.uploads/5e1f_0a1b")));
        assertThat(new GenericHttpIdentity("", false).identify("PUT", "/.uploads/5e1f_0a1b", "store", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/.uploads/5e1f_0a1b")));
        assertThat(new GenericHttpIdentity("/bkt/sub", false).identify("PUT", "/.uploads/5e1f_0a1b", "store", null))
                .isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey("/.uploads/5e1f_0a1b")));
    }

    /** kind, method, target, Host, resource ("400 tag" for a refusal). */
    static Stream<Arguments> table() {
        return Stream.of(
                row("http", "PUT", "/b/date=2024/part-0", "store", "/b/date=2024/part-0"),
                row("http", "PUT", "/b/date%3D2024/part-0", "store", "/b/date=2024/part-0"),
                row("http", "PUT", "/b/date%3d2024/part-0", "other-name", "/b/date=2024/part-0"),
                row("http", "PUT", "/b/k%3A%40%21%24%26%27%28%29%2A%2C", "store", "/b/k:@!$&'()*,"),
                row("http", "PUT", "/b/caf%c3%a9", "store", "/b/caf%C3%A9"),
                row("http", "PUT", "/b/a%2Bb", "store", "/b/a%2Bb"),
                row("http", "PUT", "/b/a+b", "store", "400 ambiguous-path"),
                row("http", "PUT", "/b/a;b", "store", "400 ambiguous-path"),
                row("http", "PUT", "/b/a%2Fb", "store", "400 ambiguous-path"),
                row("http", "DELETE", "/b/dir/", "store", "400 ambiguous-path"),
                row("http", "PUT", "/b/dir/", "store", "400 ambiguous-path"),
                row("http", "PUT", "/b/k", "b.localhost", "/b/k"),
                row("webdav", "PUT", "/b/date%3D2024/part-0", "store", "/b/date=2024/part-0"),
                row("webdav", "DELETE", "/b/dir/", "store", "400 ambiguous-path"),
                row("webdav", "DELETE", "/b/dir", "store", "/b/dir"),
                row("webdav", "MOVE", "/b/x", "store", "405 method-not-allowed"),
                row("webdav", "COPY", "/b/x", "store", "405 method-not-allowed"),
                row("webdav", "MKCOL", "/b/dir/", "store", "405 method-not-allowed"),
                row("webdav", "PUT", "/b/.davfs.tmpAb12Cd", "store", "400 unfenceable-write"),
                row("webdav", "DELETE", "/b/%2Edavfs.tmpAb12Cd", "store", "400 unfenceable-write"),
                row("webdav", "PUT", "/b/.DAV/props", "store", "400 unfenceable-write"),
                row("http", "PUT", "/b/.davfs.tmpAb12Cd", "store", "400 unfenceable-write"),
                row("webdav", "PUT", "/b/.davfs", "store", "/b/.davfs"),
                row("webdav", "PUT", "/b/.htaccess", "store", "400 unfenceable-write"),
                row("webdav", "PUT", "/b/d/%2Ehtaccess", "store", "400 unfenceable-write"),
                row("webdav", "DELETE", "/b/.HTAccess", "store", "400 unfenceable-write"),
                row("http", "PUT", "/b/.htpasswd", "store", "400 unfenceable-write"),
                row("http", "PUT", "/b/.ht/x", "store", "400 unfenceable-write"),
                row("webdav", "PUT", "/b/.hidden", "store", "/b/.hidden"),
                row("webdav", "PUT", "/b/x.htaccess", "store", "/b/x.htaccess"),
                row("s3-path", "PUT", "/b/.htaccess", "localhost", "/b/.htaccess"),
                row("webdav", "PUT", "/b/report.0000000008", "store", "400 unfenceable-write"),
                row("http", "DELETE", "/b/d/r.csv.4294967295", "store", "400 unfenceable-write"),
                row("webdav", "PUT", "/b/report.000000008", "store", "/b/report.000000008"),
                row("webdav", "PUT", "/b/report.00000000081", "store", "/b/report.00000000081"),
                row("webdav", "PUT", "/b/0000000008", "store", "/b/0000000008"),
                row("webdav", "PUT", "/b/.0000000008", "store", "/b/.0000000008"),
                row("s3-path", "PUT", "/b/report.0000000008", "localhost", "/b/report.0000000008"),
                row("webdav", "PUT", "/b/.dav", "store", "/b/.dav"),
                row("s3-path", "PUT", "/b/date%3D2024/part-0", "localhost:9000", "/b/date=2024/part-0"),
                row("s3-path", "PUT", "/b/k/", "localhost", "/b/k"),
                row("s3-path", "PUT", "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e", "localhost", "400 unfenceable-write"),
                row("s3-path", "DELETE", "/b/d/k-0F8FAD5B-D9CB-469F-A165-70867728950E", "localhost", "400 unfenceable-write"),
                row("s3-virtual-host", "PUT", "/k-0f8fad5b-d9cb-469f-a165-70867728950e", "b.s3.example", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/.mpus-abc-k-1", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/d/%2Es3proxy-slash", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/0f8fad5b-d9cb-469f-a165-70867728950e", "localhost", "/b/0f8fad5b-d9cb-469f-a165-70867728950e"),
                row("s3-path", "PUT", "/b/k.0f8fad5b-d9cb-469f-a165-70867728950e", "localhost", "/b/k.0f8fad5b-d9cb-469f-a165-70867728950e"),
                row("http", "PUT", "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e", "store", "400 unfenceable-write"),
                row("http", "PUT", "/b/.MPUS-abc-k-1", "store", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/.S3Proxy-versions/k", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e/", "localhost", "400 unfenceable-write"),
                row("s3-path", "DELETE", "/b/d/k-0f8fad5b-d9cb-469f-a165-70867728950e%2F", "localhost", "400 ambiguous-path"),
                row("s3-virtual-host", "PUT", "/k-0f8fad5b-d9cb-469f-a165-70867728950e/", "b.s3.example", "400 unfenceable-write"),
                row("s3-path", "DELETE", "/b/.sgwtmp/multipart/5e1f/u1.9a0b-3.inprogress/2", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/.SGWTMP/x", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/d/.report.csv.sgwtmp.1733212345678901234", "localhost", "400 unfenceable-write"),
                row("http", "PUT", "/b/.sgwtmp/k", "store", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/sgwtmp/k", "localhost", "/b/sgwtmp/k"),
                row("s3-path", "PUT", "/b/report.sgwtmp", "localhost", "/b/report.sgwtmp"),
                row("s3-path", "PUT", "/b/dir__XLDIR__", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/d/__XLDIR__", "localhost", "400 unfenceable-write"),
                row("s3-virtual-host", "DELETE", "/dir__xldir__", "b.s3.example", "400 unfenceable-write"),
                row("http", "PUT", "/b/dir__XLDIR__", "store", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/__XLDIR__x", "localhost", "/b/__XLDIR__x"),
                row("s3-path", "PUT", "/b/d__XLDIR__/k", "localhost", "/b/d__XLDIR__/k"),
                row("webdav", "PUT", "/b/dir__XLDIR__", "store", "/b/dir__XLDIR__"),
                row("s3-path", "PUT", "/b/.uploads/5e1f_0a1b/", "localhost", "400 unfenceable-write"),
                row("s3-virtual-host", "PUT", "/.Uploads/5e1f_0a1b", "b.s3.example", "400 unfenceable-write"),
                row("http", "DELETE", "/b/.uploads/5e1f_0a1b/0001_x.part", "store", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/d/.uploads/k", "localhost", "/b/d/.uploads/k"),
                row("s3-path", "PUT", "/b/report.csv.versions/", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/report.csv.versions/v_0a1b", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/d/k.VERSIONS", "localhost", "400 unfenceable-write"),
                row("s3-path", "PUT", "/b/.versions", "localhost", "/b/.versions"),
                row("s3-path", "PUT", "/b/versions/k", "localhost", "/b/versions/k"),
                row("webdav", "PUT", "/b/.uploads/k", "store", "/b/.uploads/k"),
                row("webdav", "PUT", "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e", "store", "/b/k-0f8fad5b-d9cb-469f-a165-70867728950e"),
                row("s3-path", "DELETE", "/b/k/", "127.0.0.1:9000", "/b/k"),
                row("s3-path", "PUT", "/b/", "localhost", "/b"),
                row("s3-path", "PUT", "/k", "b.localhost", "400 ambiguous-host"),
                row("s3-path", "PUT", "/k", "B.S3.Example.", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/b/k", "localhost:9000", "/b/k"),
                row("s3-virtual-host", "PUT", "/k", "b.localhost:9000", "/b/k"),
                row("s3-virtual-host", "PUT", "/k", "b.s3.example", "/b/k"),
                row("s3-virtual-host", "PUT", "/k/", "b.s3.example", "/b/k"),
                row("s3-virtual-host", "PUT", "/", "b.s3.example", "/b"),
                row("s3-virtual-host", "PUT", "/k%3D1", "my.bucket.s3.example", "/my.bucket/k=1"),
                row("s3-virtual-host", "PUT", "/k", "b", "/b/k"), // CNAME style: any other name is the bucket
                row("s3-virtual-host", "PUT", "/k", "b.cdn.example:80", "/b.cdn.example/k"),
                row("s3-virtual-host", "PUT", "/k", "B.localhost", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "b.localhost.", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "127.0.0.1:9000", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "[::1]:9000", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "b.localhost:x", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "b.localhost:65536", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "b.localhost:99999", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "b.localhost:65535", "/b/k"),
                row("s3-virtual-host", "PUT", "/k", null, "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "-b.localhost", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k", "a..b", "400 ambiguous-host"),
                row("s3-virtual-host", "PUT", "/k%2F", "b.localhost", "400 ambiguous-path"));
    }

    private static Arguments row(String kind, String method, String target, String host, String expected) {
        return Arguments.of(kind, method, target, host, expected);
    }

    @ParameterizedTest(name = "{0}: {1} {2} Host {3} -> {4}")
    @MethodSource("table")
    void eachSpellingIsFencedAsTheObjectTheStoreTouchesOrRefused(String kind, String method, String target, String host,
                                                                 String expected) {
        StoreIdentity.Identified identified = KINDS.get(kind).identify(method, target, host, null);

        if (expected.startsWith("/")) {
            assertThat(identified).isEqualTo(new StoreIdentity.Identified.Resource(new ResourceKey(expected)));
        } else {
            assertThat(identified).isInstanceOfSatisfying(StoreIdentity.Identified.Refused.class, refused -> {
                assertThat(refused.problem().outcome().status() + " " + refused.problem().outcome().tag()).isEqualTo(expected);
                assertThat(refused.problem().detail()).isNotBlank();
            });
        }
    }

    @Test
    void aDeleteObjectsKeyIsFencedAsThePutOfThatKey() {
        for (StoreIdentity identity : List.of(KINDS.get("s3-path"), KINDS.get("s3-virtual-host"))) {
            assertThat(identity.keyInBucket("/b", "date=2024/part-0")).isEqualTo(identity.identify("PUT", "/b/date%3D2024/part-0", "localhost", null));
            assertThat(identity.keyInBucket("/b", "dir/")).isEqualTo(identity.identify("PUT", "/b/dir/", "localhost", null));
            assertThat(identity.keyInBucket("/b", "k:v")).isEqualTo(identity.identify("PUT", "/b/k:v", "localhost", null));
        }
        assertThat(KINDS.get("webdav").keyInBucket("/b", "dir/")).isInstanceOf(StoreIdentity.Identified.Refused.class);
    }

    @Test
    void deleteObjectsIsReadInTheBucketTheHostNames() {
        StoreIdentity identity = KINDS.get("s3-virtual-host");

        assertThat(identity.identify("POST", "/?delete", "logs.s3.example", null)).isEqualTo(new StoreIdentity.Identified.KeysInBody("/logs"));
        assertThat(identity.identify("POST", "/logs/?delete", "s3.example", null)).isEqualTo(new StoreIdentity.Identified.KeysInBody("/logs"));
        assertThat(identity.identify("POST", "/k?delete", "logs.s3.example", null)).isInstanceOf(StoreIdentity.Identified.Refused.class);
    }

    /** An SDK left in virtual-host style, with a Host no listed domain covers, sends POST /?delete: the refusal says what to set. */
    @Test
    void aDeleteObjectsThatNamesNoBucketPointsToPathStyle() {
        StoreIdentity.Identified identified = KINDS.get("s3-path").identify("POST", "/?delete", "logs.store.internal", null);

        assertThat(((StoreIdentity.Identified.Refused) identified).problem().detail()).contains("forcePathStyle(true)");
    }

    @Test
    void aWebDavCopyNamesItsDestinationInTheRefusal() {
        StoreIdentity.Identified identified = KINDS.get("webdav").identify("COPY", "/b/x", "store", "http://store/b/y");

        assertThat(((StoreIdentity.Identified.Refused) identified).problem().detail()).contains("http://store/b/y");
    }

    /**
     * SabreDAV 1.8 on PHP 8.1 and later encodes again, as if Latin-1, names PHP takes for Latin-1,
     * so {@code /b/fi%C4%B1le} and {@code /b/fi%C3%84%C2%B1le} were one file with two fences. The
     * second spelling, whose characters read as Latin-1 bytes are valid UTF-8, is refused under
     * {@code webdav}; names whose Latin-1 bytes are no UTF-8, or that hold a character above U+00FF,
     * are fenced as before.
     */
    @Test
    void underWebDavANameThatIsAnotherNamesDoubleEncodingIsRefused() {
        StoreIdentity webdav = new WebDavIdentity();
        for (String target : List.of("/b/fi%C3%84%C2%B1le", "/b/%C3%83%C2%A9", "/b/a%C3%82%C2%A0b?x", "/%C3%85%C2%BF/x")) {
            assertThat(webdav.identify("PUT", target, "store", null)).as(target)
                    .isInstanceOfSatisfying(StoreIdentity.Identified.Refused.class,
                            refused -> assertThat(refused.problem().outcome()).isEqualTo(Outcome.AMBIGUOUS_PATH));
        }
        for (String target : List.of("/b/fi%C4%B1le", "/b/caf%C3%A9", "/b/%C3%A9%C3%A9", "/b/%C3%83", "/b/%E2%82%AC%C3%83%C2%A9",
                "/b/plain", "/b/q%3Fv=1")) {
            assertThat(webdav.identify("PUT", target, "store", null)).as(target)
                    .isInstanceOf(StoreIdentity.Identified.Resource.class);
        }
    }
}
