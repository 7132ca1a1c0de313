package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.Limits;
import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.GenericHttpIdentity;
import dev.fencegate.http.StoreIdentity;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.ResourceScopes;
import dev.fencegate.http.S3PathIdentity;
import dev.fencegate.http.S3VirtualHostIdentity;
import dev.fencegate.http.VirtualHosts;
import dev.fencegate.http.WebDavIdentity;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where a head goes, from the head alone: answered (and whether the connection survives), passed, fenced. */
class RequestRouteTest {

    private static final EdgePolicy POLICY = new EdgePolicy(0, EdgePolicy.MAX_BUFFERED_BODY, 100, Set.of());
    private static final ClaimRules CLAIMS = new ClaimRules(new S3PathIdentity(new VirtualHosts(List.of("s3.example.com"))),
            ResourceScopes.perObject(), Optional.empty());

    private static RequestRoute route(HttpMethod method, String uri, String... headers) {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri);
        head.headers().set("Host", "store.internal");
        for (int i = 0; i < headers.length; i += 2) {
            head.headers().set(headers[i], headers[i + 1]);
        }
        return RequestRoute.of(head, POLICY, CLAIMS);
    }

    @Test
    void readsPassThroughWithoutAToken() {
        assertThat(route(HttpMethod.GET, "/bucket/key")).isInstanceOf(RequestRoute.PassThrough.class);
        assertThat(route(HttpMethod.HEAD, "/bucket/key")).isInstanceOf(RequestRoute.PassThrough.class);
    }

    @Test
    void aWriteWithATokenIsFencedAsItsResource() {
        assertThat(route(HttpMethod.PUT, "/bucket/key", "Fencing-Token", "7")).isEqualTo(new RequestRoute.Fenced(
                new FenceClaim(new ResourceKey("/bucket/key"), new FencingToken(7), Optional.empty())));
    }

    @Test
    void aWriteWithoutATokenIsAnsweredAndTheConnectionMayBeKept() {
        RequestRoute route = route(HttpMethod.PUT, "/bucket/key");
        assertThat(route).isInstanceOf(RequestRoute.Answer.class);
        assertThat(((RequestRoute.Answer) route).problem().outcome()).isEqualTo(Outcome.MISSING_TOKEN);
        assertThat(((RequestRoute.Answer) route).close()).isFalse();
    }

    @Test
    void aRefusedMethodIsAnsweredAndTheConnectionClosed() {
        RequestRoute route = route(HttpMethod.CONNECT, "/bucket/key", "Fencing-Token", "7");
        assertThat(((RequestRoute.Answer) route).problem().outcome()).isEqualTo(Outcome.METHOD_NOT_ALLOWED);
        assertThat(((RequestRoute.Answer) route).close()).isTrue();
    }

    @Test
    void aVirtualHostStyleWriteIsRefusedBeforeItsTokenIsRead() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/key");
        head.headers().set("Host", "bucket.s3.example.com").set("Fencing-Token", "7");
        RequestRoute route = RequestRoute.of(head, POLICY, CLAIMS);
        assertThat(((RequestRoute.Answer) route).problem().outcome()).isEqualTo(Outcome.AMBIGUOUS_HOST);
    }

    @Test
    void deleteObjectsIsReadWholeBeforeItIsFenced() {
        assertThat(route(HttpMethod.POST, "/bucket?delete", "Fencing-Token", "7")).isEqualTo(new RequestRoute.DeleteObjects("/bucket"));
    }

    @Test
    void aWriteIsFencedUnderTheObjectItsStoreKindNames() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/date%3D2024/part-0/");
        head.headers().set("Host", "logs.s3.example.com").set("Fencing-Token", "7");
        ClaimRules virtualHosts = new ClaimRules(new S3VirtualHostIdentity(new VirtualHosts(List.of("s3.example.com"))),
                ResourceScopes.perObject(), Optional.empty());

        assertThat(RequestRoute.of(head, POLICY, virtualHosts)).isEqualTo(new RequestRoute.Fenced(
                new FenceClaim(new ResourceKey("/logs/date=2024/part-0"), new FencingToken(7), Optional.empty())));
    }

    @Test
    void aWebDavCollectionWriteIsAnsweredAndTheConnectionMayBeKept() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.DELETE, "/dir/");
        head.headers().set("Host", "store.internal").set("Fencing-Token", "7");
        ClaimRules webDav = new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty());

        RequestRoute route = RequestRoute.of(head, POLICY, webDav);
        assertThat(((RequestRoute.Answer) route).problem().outcome()).isEqualTo(Outcome.AMBIGUOUS_PATH);
        assertThat(((RequestRoute.Answer) route).close()).isFalse();
    }

    @Test
    void aReadWithABodyIsAnsweredAndTheConnectionClosed() {
        for (HttpMethod method : new HttpMethod[] {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS}) {
            for (String[] framing : new String[][] {{"Content-Length", "1"}, {"Transfer-Encoding", "chunked"}}) {
                RequestRoute route = route(method, "/bucket/key", framing);
                assertThat(((RequestRoute.Answer) route).problem().outcome()).as("%s %s", method, framing[0]).isEqualTo(Outcome.BODY_ON_READ);
                assertThat(((RequestRoute.Answer) route).close()).isTrue();
            }
        }
        assertThat(route(HttpMethod.GET, "/bucket/key", "Content-Length", "0")).isInstanceOf(RequestRoute.PassThrough.class);
    }

    @Test
    void aDeleteWithABodyIsAnsweredAndTheConnectionClosed() {
        for (String[] framing : new String[][] {{"Content-Length", "1"}, {"Transfer-Encoding", "chunked"}}) {
            RequestRoute route = route(HttpMethod.DELETE, "/bucket/key", "Fencing-Token", "7", framing[0], framing[1]);
            assertThat(((RequestRoute.Answer) route).problem().outcome()).as(framing[0]).isEqualTo(Outcome.BODY_ON_DELETE);
            assertThat(((RequestRoute.Answer) route).close()).isTrue();
        }
        assertThat(route(HttpMethod.DELETE, "/bucket/key", "Fencing-Token", "7", "Content-Length", "0"))
                .isInstanceOf(RequestRoute.Fenced.class);
    }

    @Test
    void aHeaderThatOverridesTheMethodOrPathIsRefusedOnReadsAndWrites() {
        // An underscore too: servers that pass headers on as CGI-style variables read X_Original_URL as X-Original-URL;
        // and a dot, which PHP turns into an underscore there.
        for (String header : new String[] {"X-HTTP-Method-Override", "x-http-method", "X-Method-Override", "X-Original-URL", "x-rewrite-url",
                "X_HTTP_Method_Override", "x_original_url", "X-Rewrite_URL", "X.HTTP.Method.Override", "X.Original_URL"}) {
            for (HttpMethod method : new HttpMethod[] {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT}) {
                RequestRoute route = route(method, "/bucket/key", "Fencing-Token", "7", header, header.contains("URL") ? "/bucket/other" : "DELETE");
                assertThat(route).as("%s %s", method, header).isInstanceOf(RequestRoute.Answer.class);
                assertThat(((RequestRoute.Answer) route).problem().outcome()).as("%s %s", method, header).isEqualTo(Outcome.OVERRIDE_HEADER);
                assertThat(((RequestRoute.Answer) route).problem().detail()).containsIgnoringCase(header);
            }
        }
        assertThat(route(HttpMethod.GET, "/bucket/key", "Accept", "*/*")).isInstanceOf(RequestRoute.PassThrough.class);
    }

    /**
     * Frameworks read a {@code _method} parameter as the request's real method (Rails, Laravel,
     * Express's method override): a store behind one would take a GET for a write nobody fenced.
     */
    @Test
    void aQueryParameterThatOverridesTheMethodIsRefusedOnReadsAndWrites() {
        for (String target : new String[] {"/bucket/key?_method=DELETE", "/bucket/key?a=1&_METHOD=PUT", "/bucket/key?a=1;_method=PUT",
                "/bucket/key?%5Fmethod=DELETE", "/bucket/key?X-HTTP-Method-Override=DELETE", "/bucket/key?_method"}) {
            for (HttpMethod method : new HttpMethod[] {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT}) {
                RequestRoute route = route(method, target, "Fencing-Token", "7");
                assertThat(route).as("%s %s", method, target).isInstanceOfSatisfying(RequestRoute.Answer.class,
                        answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.OVERRIDE_HEADER));
            }
        }
        assertThat(route(HttpMethod.GET, "/bucket/key?method=x&my_method=y&_method_=z")).isInstanceOf(RequestRoute.PassThrough.class);
    }

    @Test
    void aPostToABareBucketOtherThanDeleteObjectsIsRefused() {
        for (String target : new String[] {"/bucket", "/bucket/", "/bucket?x-id=PostObject", "/bucket?uploads"}) {
            RequestRoute route = route(HttpMethod.POST, target, "Fencing-Token", "7", "Content-Type", "multipart/form-data; boundary=x");
            assertThat(((RequestRoute.Answer) route).problem().outcome()).as(target).isEqualTo(Outcome.BUCKET_POST);
        }
        assertThat(route(HttpMethod.POST, "/bucket/key?restore", "Fencing-Token", "7")).isInstanceOf(RequestRoute.Fenced.class);
        assertThat(route(HttpMethod.PUT, "/bucket", "Fencing-Token", "7")).isInstanceOf(RequestRoute.Fenced.class);
    }

    /**
     * RenameObject removes its source, a bucket's configuration later deletes or locks objects,
     * and a form-encoded write can carry S3 parameters in its body: none of them changes only the
     * object its path names, so none is forwarded; nor is DeleteBucket, which some stores (SeaweedFS
     * as it ships) apply to a bucket with its objects. Creating a bucket and subresources of an
     * object are fenced as before.
     */
    @Test
    void writesThatChangeObjectsOtherThanTheOneTheyNameAreRefused() {
        String[][] refused = {
                {"PUT", "/bucket/new?renameObject"}, {"PUT", "/bucket/new?rename%4Fbject="},
                {"PUT", "/bucket/new", "x-amz-rename-source", "/bucket/old"},
                {"PUT", "/bucket?lifecycle"}, {"PUT", "/bucket?object-lock"}, {"PUT", "/bucket/?replication"},
                {"DELETE", "/bucket?policy"},
                {"POST", "/bucket/key?uploads", "Content-Type", "application/x-www-form-urlencoded"},
                {"POST", "/bucket/key?uploadId=u", "Content-Type", "Application/X-WWW-Form-Urlencoded; charset=UTF-8"},
                {"PUT", "/bucket", "Content-Type", "application/x-www-form-urlencoded"},
                {"DELETE", "/bucket/", "Content-Type", "application/x-www-form-urlencoded"},
                {"PUT", "/bucket/key", "Content-Type", "application/x-www-form-urlencoded"},
                {"PUT", "/bucket", "x-amz-acl", "public-read-write"}, {"PUT", "/bucket/", "X-Amz-Grant-Write", "uri=x"},
                {"PUT", "/bucket", "x-amz-bucket-object-lock-enabled", "true"}, {"PUT", "/bucket", "x-amz-object-ownership", "ObjectWriter"},
                {"DELETE", "/bucket"}, {"DELETE", "/bucket/"}};
        for (String[] request : refused) {
            RequestRoute route = route(request);
            assertThat(route).as(String.join(" ", request)).isInstanceOf(RequestRoute.Answer.class);
            assertThat(((RequestRoute.Answer) route).problem().outcome()).as(String.join(" ", request))
                    .isEqualTo(Outcome.UNFENCEABLE_WRITE);
        }
        String[][] fenced = {{"PUT", "/bucket"}, {"DELETE", "/bucket/key"}, {"PUT", "/bucket/key?tagging"},
                {"PUT", "/bucket/key", "Content-Type", "application/octet-stream"}, {"PUT", "/bucket/key", "x-amz-acl", "private"}};
        for (String[] request : fenced) {
            assertThat(route(request)).as(String.join(" ", request)).isInstanceOf(RequestRoute.Fenced.class);
        }
        assertThat(route(HttpMethod.POST, "/bucket/key?uploads", "Fencing-Token", "7"))
                .isInstanceOf(RequestRoute.FencedUploadStart.class);
        HttpRequest lifecycle = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/?lifecycle");
        lifecycle.headers().set("Host", "logs.s3.example.com").set("Fencing-Token", "7");
        ClaimRules virtualHosts = new ClaimRules(new S3VirtualHostIdentity(new VirtualHosts(List.of("s3.example.com"))),
                ResourceScopes.perObject(), Optional.empty());
        assertThat(((RequestRoute.Answer) RequestRoute.of(lifecycle, POLICY, virtualHosts)).problem().outcome())
                .as("a bucket named by its Host").isEqualTo(Outcome.UNFENCEABLE_WRITE);
        HttpRequest deleteBucket = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.DELETE, "/");
        deleteBucket.headers().set("Host", "logs.s3.example.com").set("Fencing-Token", "7");
        assertThat(((RequestRoute.Answer) RequestRoute.of(deleteBucket, POLICY, virtualHosts)).problem().outcome())
                .as("DeleteBucket, the bucket named by its Host").isEqualTo(Outcome.UNFENCEABLE_WRITE);
    }

    /** Under s3-path, a Host below the name the store is reached by names a bucket there, listed or not. */
    @Test
    void aHostBelowTheStoresOwnNameIsRefusedUnderS3Path() {
        ClaimRules s3Path = new ClaimRules(GatewayServer.identity(Limits.defaults(), "minio.internal"),
                ResourceScopes.perObject(), Optional.empty());
        HttpRequest below = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/report.csv");
        below.headers().set("Host", "victim.minio.internal:9000").set("Fencing-Token", "9");
        assertThat(((RequestRoute.Answer) RequestRoute.of(below, POLICY, s3Path)).problem().outcome())
                .isEqualTo(Outcome.AMBIGUOUS_HOST);
        HttpRequest pathStyle = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/victim/report.csv");
        pathStyle.headers().set("Host", "minio.internal:9000").set("Fencing-Token", "9");
        assertThat(RequestRoute.of(pathStyle, POLICY, s3Path)).isInstanceOf(RequestRoute.Fenced.class);
        ClaimRules byAddress = new ClaimRules(GatewayServer.identity(Limits.defaults(), "10.0.0.7"),
                ResourceScopes.perObject(), Optional.empty());
        assertThat(RequestRoute.of(pathStyle, POLICY, byAddress)).as("an IP address names no bucket below it")
                .isInstanceOf(RequestRoute.Fenced.class);
    }

    /**
     * S3Proxy serves an unsigned POST to a bucket as a browser-form upload whatever its query, so a
     * DeleteObjects whose body is declared a form, by any of its Content-Type fields, is refused
     * before its XML keys are read; an object of a multipart type that is not a form is fenced as
     * before, by a PUT or a CreateMultipartUpload.
     */
    @Test
    void aDeleteObjectsWhoseBodyIsDeclaredAFormIsRefusedBeforeItsKeysAreRead() {
        for (String type : new String[] {"multipart/form-data; boundary=B", "Multipart/Form-Data;boundary=B",
                "multipart/mixed; boundary=B", "text/xml, multipart/form-data; boundary=B", "multipart /form-data; boundary=B",
                "application/x-www-form-urlencoded"}) {
            RequestRoute route = route(HttpMethod.POST, "/bucket?delete", "Fencing-Token", "7", "Content-Type", type);
            assertThat(route).as(type).isInstanceOfSatisfying(RequestRoute.Answer.class,
                    answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        }
        HttpRequest twoTypes = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/bucket?delete");
        twoTypes.headers().set("Host", "store.internal").set("Fencing-Token", "7")
                .add("Content-Type", "application/xml").add("Content-Type", "multipart/form-data; boundary=B");
        assertThat(((RequestRoute.Answer) RequestRoute.of(twoTypes, POLICY, CLAIMS)).problem().outcome())
                .isEqualTo(Outcome.UNFENCEABLE_WRITE);

        assertThat(route(HttpMethod.POST, "/bucket?delete", "Fencing-Token", "7", "Content-Type", "application/xml"))
                .isInstanceOf(RequestRoute.DeleteObjects.class);
        assertThat(route(HttpMethod.POST, "/bucket?delete", "Fencing-Token", "7")).isInstanceOf(RequestRoute.DeleteObjects.class);
        assertThat(route(HttpMethod.PUT, "/bucket/mail.eml", "Fencing-Token", "7", "Content-Type", "multipart/mixed; boundary=B"))
                .isInstanceOf(RequestRoute.Fenced.class);
        assertThat(route(HttpMethod.POST, "/bucket/page.mht?uploads", "Fencing-Token", "7", "Content-Type",
                "multipart/related; boundary=B")).as("CreateMultipartUpload of a multipart-typed object")
                .isInstanceOf(RequestRoute.FencedUploadStart.class);
        assertThat(route(HttpMethod.POST, "/bucket/page.mht?uploads", "Fencing-Token", "7", "Content-Type",
                "multipart/form-data; boundary=B"))
                .isInstanceOfSatisfying(RequestRoute.Answer.class, answer -> assertThat(answer.problem().outcome())
                        .isEqualTo(Outcome.UNFENCEABLE_WRITE));
    }

    /** Jetty drops a target's fragment, so the store would act on less than the gateway checked. */
    @Test
    void aWriteWhoseTargetHoldsAFragmentIsRefused() {
        for (String[] request : new String[][] {{"POST", "/bucket?x#&delete"}, {"PUT", "/bucket/key?#&uploadId=u"},
                {"PUT", "/bucket/key#frag"}, {"DELETE", "/bucket/a#/../b"}}) {
            assertThat(route(request)).as(String.join(" ", request)).isInstanceOfSatisfying(RequestRoute.Answer.class,
                    answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.BAD_REQUEST));
        }
        assertThat(route(new String[] {"PUT", "/bucket/key%23frag"})).isInstanceOf(RequestRoute.Fenced.class);
    }

    /**
     * A query the store cannot read (a control character, a raw non-ASCII one) would be refused by
     * the store only after the fence went up: a fence raised for a write that never happened.
     */
    @Test
    void aWriteWhoseQueryHoldsAnUnencodedCharacterIsRefusedBeforeItsFence() {
        for (String target : new String[] {"/bucket/key?partNumber=1\u0001&uploadId=u", "/bucket/key?x=\u007f",
                "/bucket/key?x=caf\u00e9", "/bucket/key?x=\t"}) {
            assertThat(route(new String[] {"PUT", target})).as(target).isInstanceOfSatisfying(RequestRoute.Answer.class,
                    answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.BAD_REQUEST));
        }
        assertThat(route(new String[] {"PUT", "/bucket/key?x=caf%C3%A9&y=%01"})).isInstanceOf(RequestRoute.Fenced.class);
        assertThat(route(new String[] {"GET", "/bucket/key?x=\u0001"})).as("reads pass through")
                .isNotInstanceOf(RequestRoute.Answer.class);
    }

    private static RequestRoute route(String[] request) {
        String[] headers = new String[request.length];
        headers[0] = "Fencing-Token";
        headers[1] = "7";
        System.arraycopy(request, 2, headers, 2, request.length - 2);
        return route(HttpMethod.valueOf(request[0]), request[1], headers);
    }

    @Test
    void aPostToABucketNamedByItsHostIsRefusedAndAPostToAPlainCollectionIsFencedAsItsPath() {
        HttpRequest form = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/");
        form.headers().set("Host", "logs.s3.example.com").set("Fencing-Token", "7")
                .set("Content-Type", "multipart/form-data; boundary=x");
        ClaimRules virtualHosts = new ClaimRules(new S3VirtualHostIdentity(new VirtualHosts(List.of("s3.example.com"))),
                ResourceScopes.perObject(), Optional.empty());
        assertThat(((RequestRoute.Answer) RequestRoute.of(form, POLICY, virtualHosts)).problem().outcome())
                .isEqualTo(Outcome.BUCKET_POST);

        HttpRequest post = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/orders");
        post.headers().set("Host", "api.internal").set("Fencing-Token", "7");
        ClaimRules plainHttp = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        assertThat(RequestRoute.of(post, POLICY, plainHttp)).isEqualTo(new RequestRoute.Fenced(
                new FenceClaim(new ResourceKey("/orders"), new FencingToken(7), Optional.empty())));
    }

    /**
     * A write whose form S3 defines for no request is refused by the store (S3Proxy answers 400 or
     * 501), but it used to be only after its fence went up, a change made for a write that never
     * happened: refused before its fence. S3's own object POSTs and part numbers are fenced.
     */
    @Test
    void underAnS3KindAWriteOfAFormS3DefinesForNoRequestIsRefusedBeforeItsFence() {
        for (String[] request : new String[][] {{"PATCH", "/bkt/n4"}, {"POST", "/bkt/n1"}, {"POST", "/bkt/n1?x=1"},
                {"POST", "/bkt/dir/n1?tagging"}, {"PUT", "/bkt/k?partNumber=abc&uploadId=u"}, {"PUT", "/bkt/k?partNumber=0&uploadId=u"},
                {"PUT", "/bkt/k?uploadId=u&partNumber=10001"}, {"PUT", "/bkt/k?PARTNUMBER=-1&uploadId=u"},
                {"PUT", "/bkt/k?partNumber=&uploadId=u"}, {"PUT", "/bkt/k?part%4Eumber=x"}, {"DELETE", "/bkt/k?partNumber=1.5"},
                {"POST", "/bkt/k?UPLOADS"}, {"POST", "/bkt/k?Restore"}, {"POST", "/bkt/k?x=1;uploads"}}) {
            assertThat(route(request)).as(String.join(" ", request)).isInstanceOfSatisfying(RequestRoute.Answer.class,
                    answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.BAD_REQUEST));
        }
        for (String[] request : new String[][] {{"POST", "/bkt/k?uploads"}, {"POST", "/bkt/k?uploadId=u"}, {"POST", "/bkt/k?restore"},
                {"POST", "/bkt/k?select&select-type=2"}, {"PUT", "/bkt/k?partNumber=1&uploadId=u"},
                {"PUT", "/bkt/k?partNumber=10000&uploadId=u"}, {"PUT", "/bkt/k?partNumbers=x"}, {"PUT", "/bkt/k"}}) {
            assertThat(route(request)).as(String.join(" ", request)).isNotInstanceOf(RequestRoute.Answer.class);
        }
    }

    /**
     * Path-style, a write of {@code /} names no bucket, and S3 defines no write on the service root:
     * the store refuses it, but a {@code PUT /} used to be refused only after a fence of {@code /}
     * went up. Under s3-virtual-host, {@code /} on a bucket's Host is the bucket, fenced as before.
     */
    @Test
    void underS3PathAWriteThatNamesNoBucketIsRefusedBeforeItsFence() {
        ClaimRules virtualHosts = new ClaimRules(new S3VirtualHostIdentity(new VirtualHosts(List.of("s3.example.com"))),
                ResourceScopes.perObject(), Optional.empty());
        for (HttpMethod method : List.of(HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.POST)) {
            assertThat(route(method, "/", "Fencing-Token", "7")).as("s3-path %s /", method)
                    .isInstanceOfSatisfying(RequestRoute.Answer.class, answer -> {
                        assertThat(answer.problem().outcome()).isEqualTo(Outcome.BAD_REQUEST);
                        assertThat(answer.problem().detail()).contains("names no bucket");
                    });
            HttpRequest pathStyle = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, "/");
            pathStyle.headers().set("Host", "s3.example.com").set("Fencing-Token", "7");
            assertThat(RequestRoute.of(pathStyle, POLICY, virtualHosts)).as("s3-virtual-host, path-style Host, %s /", method)
                    .isInstanceOfSatisfying(RequestRoute.Answer.class, answer -> {
                        assertThat(answer.problem().outcome()).isEqualTo(Outcome.BAD_REQUEST);
                        assertThat(answer.problem().detail()).contains("names no bucket");
                    });
        }
        assertThat(route(HttpMethod.POST, "/?delete", "Fencing-Token", "7")).as("DeleteObjects with no bucket")
                .isInstanceOf(RequestRoute.Answer.class);

        HttpRequest createBucket = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/");
        createBucket.headers().set("Host", "logs.s3.example.com").set("Fencing-Token", "7");
        assertThat(RequestRoute.of(createBucket, POLICY, virtualHosts)).as("CreateBucket, the bucket named by its Host")
                .isEqualTo(new RequestRoute.Fenced(new FenceClaim(new ResourceKey("/logs"), new FencingToken(7), Optional.empty())));
        HttpRequest deleteObjects = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/?delete");
        deleteObjects.headers().set("Host", "logs.s3.example.com").set("Fencing-Token", "7");
        assertThat(RequestRoute.of(deleteObjects, POLICY, virtualHosts)).as("DeleteObjects, the bucket named by its Host")
                .isEqualTo(new RequestRoute.DeleteObjects("/logs"));
    }

    /** Under the kinds whose store may not be S3, a PATCH and a POST with no query are writes of their path, fenced as such. */
    @Test
    void underHttpAPatchAndAPlainPostAndUnderWebDavAPatchAreFencedAsWritesOfTheirPath() {
        FenceClaim claim = new FenceClaim(new ResourceKey("/data/report"), new FencingToken(3), Optional.empty());
        for (StoreIdentity identity : List.of(new GenericHttpIdentity(), new WebDavIdentity())) {
            ClaimRules rules = new ClaimRules(identity, ResourceScopes.perObject(), Optional.empty());
            for (HttpMethod method : identity instanceof WebDavIdentity ? List.of(HttpMethod.PATCH) : List.of(HttpMethod.PATCH, HttpMethod.POST)) {
                HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, "/data/report");
                head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
                assertThat(RequestRoute.of(head, POLICY, rules)).as("%s %s", identity.kind(), method)
                        .isEqualTo(new RequestRoute.Fenced(claim));
            }
        }
    }

    @Test
    void multipartStepsCarryTheObjectTheirUploadIdMustBelongTo() {
        FenceClaim claim = new FenceClaim(new ResourceKey("/bucket/key"), new FencingToken(7), Optional.empty());
        assertThat(route(HttpMethod.POST, "/bucket/%6Bey?uploads", "Fencing-Token", "7"))
                .isEqualTo(new RequestRoute.FencedUploadStart(claim, new ResourceKey("/bucket/key")));
        RequestRoute.FencedUploadStep step = (RequestRoute.FencedUploadStep) route(HttpMethod.PUT,
                "/bucket/key?partNumber=2&uploadId=u1", "Fencing-Token", "7");
        assertThat(step).isEqualTo(new RequestRoute.FencedUploadStep(claim, new ResourceKey("/bucket/key"), "u1"));
        assertThat(step.refusal(Optional.of(new ResourceKey("/bucket/key")))).isEmpty();
        assertThat(step.refusal(Optional.of(new ResourceKey("/bucket/other"))).orElseThrow().outcome()).isEqualTo(Outcome.FOREIGN_UPLOAD);
        assertThat(step.refusal(Optional.empty()).orElseThrow().outcome()).isEqualTo(Outcome.FOREIGN_UPLOAD);
        assertThat(((RequestRoute.Answer) route(HttpMethod.DELETE, "/bucket/key?uploadId=a&uploadId=b", "Fencing-Token", "7"))
                .problem().outcome()).isEqualTo(Outcome.BAD_REQUEST);
    }

    /**
     * No WebDAV store reads S3's multipart queries, DeleteObjects, RenameObject or bucket
     * configurations; an S3 store behind {@code --store-kind webdav}, set by mistake, would delete
     * the keys a {@code POST ?delete} names (each fenced on its own), find an upload by its id alone,
     * or configure a bucket to delete objects later: all refused, at any depth. A WebDAV write with
     * any other query is fenced as its path.
     */
    @Test
    void underWebDavTheRequestsOnlyAnS3StoreReadsAreRefused() {
        ClaimRules webdav = new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty());
        for (String[] request : new String[][] {{"POST", "/data/report?uploads"}, {"PUT", "/data/report?uploadId=abc"},
                {"DELETE", "/data/report?UPLOADID=abc"}, {"POST", "/bucket?delete"}, {"POST", "/bucket?%64elete="},
                {"PUT", "/data/report?renameObject"}, {"PUT", "/data?lifecycle"}, {"PUT", "/a/b/c?poli%63y"}, {"PUT", "/data/report?acl"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, webdav)).as("%s %s", request[0], request[1])
                    .isInstanceOfSatisfying(RequestRoute.Answer.class,
                            answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        }
        HttpRequest renamed = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/data/report");
        renamed.headers().set("Host", "store.internal").set("Fencing-Token", "3").set("x-amz-rename-source", "/data/other");
        assertThat(RequestRoute.of(renamed, POLICY, webdav)).isInstanceOf(RequestRoute.Answer.class);
    }

    /**
     * WebDAV defines no POST and no write with a query, and stores serve both on other objects than
     * the path names: SabreDAV's browser plugin writes the file a form field names on a POST to its
     * folder, Nextcloud's bulk upload the paths its parts name, and SabreDAV 1.8 keeps a query in
     * the file's name, so that {@code PUT /b/q?v=1} writes the file {@code q?v=1}, fenced as
     * {@code /b/q%3Fv=1}, while the gateway would check {@code /b/q}. Refused before their fence;
     * the same path without a query is fenced.
     */
    @Test
    void underWebDavAPostAndAWriteWithAQueryAreRefusedBeforeTheirFence() {
        ClaimRules webdav = new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty());
        for (String[] request : new String[][] {{"POST", "/b"}, {"POST", "/b/report"}, {"PUT", "/b/q?v=1"},
                {"PUT", "/b/q?"}, {"DELETE", "/b/q?v=1"}, {"PATCH", "/b/q?x"}, {"PUT", "/data/report?version=2"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3").set("Content-Type", "multipart/form-data; boundary=x");
            assertThat(RequestRoute.of(head, POLICY, webdav)).as("%s %s", request[0], request[1])
                    .isInstanceOfSatisfying(RequestRoute.Answer.class,
                            answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        }
        for (String[] request : new String[][] {{"PUT", "/b/q"}, {"DELETE", "/b/q"}, {"PUT", "/b/q%3Fv=1"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, webdav)).as("%s %s", request[0], request[1])
                    .isInstanceOf(RequestRoute.Fenced.class);
        }
    }

    /**
     * A store of unknown kind may be S3, which finds an upload by its id alone: a step of another
     * object's upload, fenced as the object its path names, would change that upload. Under
     * {@code http} a multipart request, in any spelling, is refused; a parameter that only starts
     * alike is a query like any other.
     */
    @Test
    void underHttpAMultipartUploadRequestIsRefused() {
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        for (String[] request : new String[][] {{"POST", "/data/report?uploads"}, {"DELETE", "/data/report?uploadId=abc"},
                {"PUT", "/data/report?partNumber=1&UPLOADID=abc"}, {"POST", "/data/report?%75ploadId=abc"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, http)).as("%s %s", request[0], request[1])
                    .isInstanceOfSatisfying(RequestRoute.Answer.class,
                            answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        }
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/data/report?uploadIdx=1&upload=2");
        head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
        assertThat(RequestRoute.of(head, POLICY, http)).isEqualTo(new RequestRoute.Fenced(
                new FenceClaim(new ResourceKey("/data/report"), new FencingToken(3), Optional.empty())));
    }

    /**
     * A store of unknown kind may be S3, whose RenameObject removes the object its
     * {@code x-amz-rename-source} names, unfenced: under {@code http} it is refused as under the S3
     * kinds, in either spelling.
     */
    @Test
    void underHttpARenameObjectIsRefused() {
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        for (String[] request : new String[][] {{"/data/new?renameObject"}, {"/data/new?rename%4Fbject="},
                {"/data/new", "x-amz-rename-source", "/data/victim"}, {"/data/new", "X-Amz-Rename-Source", "/data/victim"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, request[0]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            if (request.length > 1) {
                head.headers().set(request[1], request[2]);
            }
            assertThat(RequestRoute.of(head, POLICY, http)).as(String.join(" ", request))
                    .isInstanceOfSatisfying(RequestRoute.Answer.class,
                            answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        }
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/data/new?renameObjects=1");
        head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
        assertThat(RequestRoute.of(head, POLICY, http)).isEqualTo(new RequestRoute.Fenced(
                new FenceClaim(new ResourceKey("/data/new"), new FencingToken(3), Optional.empty())));
    }

    /**
     * A write the store would apply in place, range by range (SabreDAV's {@code X-Update-Range}),
     * keeps what it received of a write the gateway cut; a chunk of ownCloud's chunked upload
     * ({@code OC-Chunked}) is assembled into another object than the one its path names. Neither is
     * forwarded, under any kind, in any spelling PHP reads as the header (an underscore or a dot
     * for a hyphen); a read with either passes.
     */
    @Test
    void writesAStoreAppliesInPlaceOrAssemblesIntoAnotherObjectAreRefused() {
        String[][] refused = {
                {"PATCH", "/data/file", "X-Update-Range", "append"}, {"PATCH", "/data/file", "x-update-range", "bytes=0-3"},
                {"PATCH", "/data/file", "X_Update_Range", "append"}, {"PATCH", "/data/file", "X.Update.Range", "append"},
                {"PUT", "/data/file", "Content_Range", "bytes 0-3/4"}, {"PUT", "/data/file", "Content.Range", "bytes 0-3/4"},
                {"PUT", "/data/file-chunking-123-2-0", "OC-Chunked", "1"}, {"PUT", "/data/file-chunking-123-2-1", "oc-chunked", "1"},
                {"PUT", "/data/file-chunking-123-2-0", "OC_Chunked", "1"}, {"PUT", "/data/file-chunking-123-2-1", "OC.Chunked", "1"}};
        for (ClaimRules rules : List.of(new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty()),
                new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty()))) {
            for (String[] request : refused) {
                HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
                head.headers().set("Host", "store.internal").set("Fencing-Token", "3").set(request[2], request[3]);
                assertThat(RequestRoute.of(head, POLICY, rules)).as(String.join(" ", request))
                        .isInstanceOf(RequestRoute.Answer.class);
            }
        }
        assertThat(route(new String[] {"PUT", "/bucket/key", "OC-Chunked", "1"})).isInstanceOf(RequestRoute.Answer.class);
        assertThat(route(new String[] {"GET", "/bucket/key", "X-Update-Range", "append"})).as("reads pass through")
                .isNotInstanceOf(RequestRoute.Answer.class);
    }

    /**
     * TUS's resumable uploads (oCIS and Reva serve them on their WebDAV paths): the creation, a POST
     * to a folder, writes the file its {@code Upload-Metadata} names, with the body too when its
     * type is {@code application/offset+octet-stream}; a concatenation assembles other uploads into
     * one. Refused under every kind, in any spelling, before their fence.
     */
    @Test
    void aTusUploadThatNamesItsFileInItsMetadataIsRefusedUnderEveryKind() {
        String[][] refused = {
                {"POST", "/remote.php/dav/files/alice", "Tus-Resumable", "1.0.0"},
                {"POST", "/remote.php/dav/files/alice", "Upload-Metadata", "filename cmVwb3J0"},
                {"PATCH", "/data/upload-1", "tus_resumable", "1.0.0"},
                {"POST", "/data/files", "Upload-Concat", "final;/data/a /data/b"},
                {"PUT", "/bucket/key", "Upload.Metadata", "filename cmVwb3J0"}};
        for (ClaimRules rules : List.of(new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty()),
                new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty()),
                CLAIMS)) {
            for (String[] request : refused) {
                HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
                head.headers().set("Host", "store.internal").set("Fencing-Token", "3").set(request[2], request[3]);
                assertThat(RequestRoute.of(head, POLICY, rules)).as("%s %s", rules.identity().kind(), String.join(" ", request))
                        .isInstanceOfSatisfying(RequestRoute.Answer.class,
                                answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
            }
        }
    }

    /**
     * Headers with which an S3 store changes objects other than the one the path names (MinIO's and
     * RustFS's force delete of a bucket or a prefix, their Snowball auto-extract of an archive into
     * objects, and its prefix) are refused under every kind, in any case and spelling, with any
     * value; reads pass.
     */
    @Test
    void writesWhoseHeadersMakeTheStoreChangeOtherObjectsAreRefused() {
        String[][] refused = {
                {"DELETE", "/bucket/dir", "x-minio-force-delete", "true"}, {"DELETE", "/bucket/dir", "X-Minio-Force-Delete", "false"},
                {"DELETE", "/bucket/dir", "x_minio_force_delete", "true"},
                {"PUT", "/bucket/batch.tar", "X-Amz-Meta-Snowball-Auto-Extract", "true"},
                {"PUT", "/bucket/batch.tar", "x-amz-meta-snowball-auto-extract", "yes, true"},
                {"PUT", "/bucket/batch.tar", "X-Amz-Meta-Minio-Snowball-Prefix", "jobs/42"},
                {"DELETE", "/bucket/dir", "X-Rustfs-Force-Delete", "true"}, {"DELETE", "/bucket", "x.rustfs.force.delete", "1"},
                {"PUT", "/bucket/batch.tar", "X-Amz-Snowball-Auto-Extract", "true"},
                {"PUT", "/bucket/batch.tar", "x-amz-meta-rustfs-snowball-prefix", "jobs/42"}};
        List<ClaimRules> kinds = List.of(CLAIMS, new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty()),
                new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty()),
                new ClaimRules(new S3VirtualHostIdentity(new VirtualHosts(List.of("s3.example.com"))), ResourceScopes.perObject(),
                        Optional.empty()));
        for (ClaimRules rules : kinds) {
            for (String[] request : refused) {
                HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
                head.headers().set("Host", "store.internal").set("Fencing-Token", "3").set(request[2], request[3]);
                assertThat(RequestRoute.of(head, POLICY, rules)).as(String.join(" ", request))
                        .isInstanceOfSatisfying(RequestRoute.Answer.class,
                                answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
            }
        }
        assertThat(route(new String[] {"PUT", "/bucket/batch.tar", "X-Amz-Meta-Force-Deleted-By", "ops"}))
                .isInstanceOf(RequestRoute.Fenced.class);
        assertThat(route(HttpMethod.GET, "/bucket/dir", "x-minio-force-delete", "true")).as("reads pass through")
                .isNotInstanceOf(RequestRoute.Answer.class);
    }

    /**
     * Under http, whose store may be S3, a write of a top-level path with a query S3 reads as a
     * bucket's configuration (lifecycle, replication, policy...) is refused; other queries, and the
     * same names on deeper paths (an object's own tagging or ACL), are fenced as their path.
     */
    @Test
    void underHttpABucketConfigurationWriteIsRefused() {
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        for (String[] request : new String[][] {{"PUT", "/data?lifecycle"}, {"PUT", "/data?replication="}, {"PUT", "/data?poli%63y"},
                {"DELETE", "/data?lifecycle"}, {"PUT", "/data?object-lock&x=1"}, {"PUT", "/data?x=1&versioning"}, {"PUT", "/data?acl"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, http)).as(String.join(" ", request))
                    .isInstanceOfSatisfying(RequestRoute.Answer.class,
                            answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.UNFENCEABLE_WRITE));
        }
        for (String target : new String[] {"/data?version=2", "/data/report?tagging", "/data/report?acl", "/data?policyId=7"}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, target);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, http)).as(target).isInstanceOf(RequestRoute.Fenced.class);
        }
    }

    /**
     * Under http, whose store may be S3, a DELETE of a top-level path is DeleteBucket there, which
     * some stores apply to a bucket with its objects: refused. Deeper paths are fenced as themselves,
     * and so is every path behind an --upstream path, which the store gets deeper than a bucket.
     */
    @Test
    void underHttpADeleteOfATopLevelPathIsRefused() {
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        for (String target : new String[] {"/data", "/data/"}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.DELETE, target);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, http)).as(target).isInstanceOf(RequestRoute.Answer.class);
        }
        HttpRequest deeper = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.DELETE, "/data/report");
        deeper.headers().set("Host", "store.internal").set("Fencing-Token", "3");
        assertThat(RequestRoute.of(deeper, POLICY, http)).isInstanceOf(RequestRoute.Fenced.class);
        HttpRequest put = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/data");
        put.headers().set("Host", "store.internal").set("Fencing-Token", "3");
        assertThat(RequestRoute.of(put, POLICY, http)).as("a PUT of a top-level path").isInstanceOf(RequestRoute.Fenced.class);
        ClaimRules behindABucket = new ClaimRules(new GenericHttpIdentity("/mybucket", false), ResourceScopes.perObject(),
                Optional.empty());
        for (String[] request : new String[][] {{"DELETE", "/report"}, {"PUT", "/report?acl"}}) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(request[0]), request[1]);
            head.headers().set("Host", "store.internal").set("Fencing-Token", "3");
            assertThat(RequestRoute.of(head, POLICY, behindABucket)).as("behind --upstream .../mybucket, an object's: " + request[1])
                    .isInstanceOf(RequestRoute.Fenced.class);
        }
    }

    /**
     * A query with a '%' that begins no escape, or escapes that decode to no UTF-8 text, is refused
     * before its fence goes up: the store (S3Proxy on Jetty) would refuse it only after.
     */
    @Test
    void aWriteWhoseQueryHoldsAMalformedEscapeIsRefusedBeforeItsFence() {
        for (String target : new String[] {"/bucket/key?x=%zz", "/bucket/key?x=%4", "/bucket/key?x=%", "/bucket/key?%C1%A5",
                "/bucket/key?x=%C3", "/bucket/key?x=%ED%A0%80", "/bucket/key?x=%FF&y=1", "/bucket/key?x=%e2%82"}) {
            assertThat(route(new String[] {"PUT", target})).as(target).isInstanceOfSatisfying(RequestRoute.Answer.class,
                    answer -> assertThat(answer.problem().outcome()).isEqualTo(Outcome.BAD_REQUEST));
        }
        for (String target : new String[] {"/bucket/key?x=%e2%82%ac", "/bucket/key?x=%25zz", "/bucket/key?x=a+b&y=%2F"}) {
            assertThat(route(new String[] {"PUT", target})).as(target).isInstanceOf(RequestRoute.Fenced.class);
        }
    }
}
