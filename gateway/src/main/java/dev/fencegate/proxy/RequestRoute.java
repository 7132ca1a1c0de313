package dev.fencegate.proxy;

import dev.fencegate.fence.FenceClaim;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.WriteClassifier;
import dev.fencegate.http.ClaimParser;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.FencingHeaders;
import dev.fencegate.http.GenericHttpIdentity;
import dev.fencegate.http.HeaderNames;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import dev.fencegate.http.S3StoreIdentity;
import dev.fencegate.http.S3Requests;
import dev.fencegate.http.StoreIdentity;
import dev.fencegate.http.UploadIds;
import dev.fencegate.http.WebDavIdentity;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a request head goes, decided from the head alone: answered by the gateway, passed through
 * unfenced, fenced as one claim, or read whole first as a DeleteObjects request. Nothing here
 * reads a body or touches a channel.
 */
sealed interface RequestRoute {

    /**
     * Answered by the gateway. {@code close}: the head itself is broken or refused, so nothing
     * after it on the connection can be trusted; otherwise the connection may be kept.
     */
    record Answer(Problem problem, boolean close) implements RequestRoute {
    }

    record PassThrough() implements RequestRoute {
    }

    record Fenced(FenceClaim claim) implements RequestRoute {
    }

    /** Keys in the body, each in the bucket at {@code bucketPath}, as the store kind names it. */
    record DeleteObjects(String bucketPath) implements RequestRoute {
    }

    /** CreateMultipartUpload: fenced, and the id in the store's answer recorded for {@code object}. */
    record FencedUploadStart(FenceClaim claim, ResourceKey object) implements RequestRoute {
    }

    /** A multipart step naming an upload id: fenced, and refused unless the id was created for {@code object}. */
    record FencedUploadStep(FenceClaim claim, ResourceKey object, String uploadId) implements RequestRoute {

        /** Why the step is refused, given the id's recorded owner; empty when it is this object's upload. */
        Optional<Problem> refusal(Optional<ResourceKey> owner) {
            if (owner.isPresent() && owner.get().equals(object)) {
                return Optional.empty();
            }
            if (owner.isEmpty()) {
                return Optional.of(Problem.of(Outcome.FOREIGN_UPLOAD, "upload id " + uploadId + " is not known: it was"
                        + " never created through the gateway, or longer ago than --multipart-upload-lifetime"));
            }
            return Optional.of(Problem.of(Outcome.FOREIGN_UPLOAD, "upload id " + uploadId + " was created for another object,"
                    + " not for " + object + "; use it only with the key it was created for"));
        }
    }

    /**
     * Headers web frameworks and servers read as the request's real method (Express's and ASP.NET's
     * method override, OData's) or its real path (IIS's URL rewrite, Symfony and Laminas before they
     * dropped them).
     */
    List<String> OVERRIDES = List.of("x-http-method-override", "x-http-method", "x-method-override", "x-original-url",
            "x-rewrite-url");

    /** The first header that {@link #OVERRIDES overrides} the method or path, as the client spelt it, or null. */
    private static String overrideIn(HttpRequest head) {
        return firstOf(head, OVERRIDES);
    }

    /** The first header of {@code head} that {@link HeaderSpellings spells} one of {@code names}, as the client spelt it, or null. */
    private static String firstOf(HttpRequest head, List<String> names) {
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = head.headers().iteratorCharSequence(); it.hasNext(); ) {
            CharSequence name = it.next().getKey();
            for (String lowerCase : names) {
                if (HeaderSpellings.sameName(name, lowerCase)) {
                    return name.toString();
                }
            }
        }
        return null;
    }

    /**
     * Query parameters frameworks read as the request's real method (Rails', Laravel's and
     * Express's {@code _method}, and the override headers' names given as parameters).
     */
    List<String> QUERY_OVERRIDES = List.of("_method", "x-http-method-override", "x-http-method", "x-method-override");

    /**
     * Headers that make a store write a range in place: {@code Content-Range} (Apache mod_dav) and
     * SabreDAV's partial update, a PATCH that writes its body into the file at the range that
     * {@code X-Update-Range} names.
     */
    List<String> IN_PLACE = List.of("content-range", "x-update-range");

    /**
     * ownCloud's chunked upload: a PUT of one chunk, which the store assembles into another object;
     * and TUS's resumable uploads (oCIS, Reva), whose creation names the file it writes in
     * {@code Upload-Metadata} and whose concatenation assembles other uploads into one.
     */
    List<String> OC_CHUNKED = List.of("oc-chunked", "tus-resumable", "upload-metadata", "upload-concat");

    /**
     * Whether a header makes an S3 store change objects other than the one the path names: a
     * force delete ({@code x-minio-force-delete}, RustFS's {@code x-rustfs-force-delete}, any
     * {@code x-*-force-delete}) deletes a bucket with every object in it, or every object under the
     * path taken as a prefix; a Snowball auto-extract (MinIO's {@code X-Amz-Meta-Snowball-Auto-Extract},
     * RustFS's {@code X-Amz-Snowball-Auto-Extract}, and the prefix headers that go with them: any
     * header naming {@code snowball}) writes each entry of the archive PUT as an object of its own.
     */
    static boolean fansOut(CharSequence name) {
        return HeaderSpellings.holdsAt(name, 0, "x-") && HeaderSpellings.holdsAt(name, name.length() - "-force-delete".length(),
                "-force-delete") || HeaderSpellings.holds(name, "snowball");
    }

    /**
     * The first query parameter that {@link #QUERY_OVERRIDES overrides} the method, named as a
     * framework reads it (percent-decoded, either case, split at '&' or ';'), or null.
     */
    static String overrideInQuery(String target) {
        String name = S3Requests.parameterNamed(target, QUERY_OVERRIDES);
        return name == null ? null : "query parameter '" + name + "'";
    }

    static RequestRoute of(HttpRequest head, EdgePolicy policy, ClaimRules claims) {
        if (head.decoderResult().isFailure()) {
            return new Answer(RequestScreen.decoderFailure(head.decoderResult().cause()), true);
        }
        WriteClassifier.Kind kind = WriteClassifier.classify(head.method().name());
        if (kind == WriteClassifier.Kind.REFUSED) {
            return new Answer(Problem.of(Outcome.METHOD_NOT_ALLOWED, "method " + head.method() + " is not served"), true);
        }
        Problem screened = RequestScreen.check(head, policy);
        if (screened != null) {
            return new Answer(screened, true);
        }
        if (kind == WriteClassifier.Kind.READ && hasBody(head)) {
            // A store that does not read a GET body (Python's http.server) would take it for the next,
            // unfenced, request; so a read with a body is refused and its connection closed.
            return new Answer(Problem.of(Outcome.BODY_ON_READ, head.method() + " with a body is not served"), true);
        }
        if (head.method().name().equals("DELETE") && hasBody(head)) {
            // No DELETE of S3 or WebDAV has a body, and a store's DELETE handler reads none (Python's
            // http.server's would not), so the store would take it for its next, unfenced, request.
            return new Answer(Problem.of(Outcome.BODY_ON_DELETE, "DELETE with a body is not served"), true);
        }
        String override = overrideIn(head);
        if (override == null) {
            override = overrideInQuery(head.uri());
        }
        if (override != null) {
            // A store that honours it acts with another method (a read becomes a write nobody
            // fenced) or on another path than the one checked.
            return new Answer(Problem.of(Outcome.OVERRIDE_HEADER, override + " is not served: a store that honours it"
                    + " would act with another method or on another path than the one the gateway checked"), false);
        }
        if (kind == WriteClassifier.Kind.READ) {
            return new PassThrough();
        }
        String inPlace = firstOf(head, IN_PLACE);
        if (inPlace != null) {
            // A store may write a range in place (Apache mod_dav does with Content-Range, SabreDAV's
            // partial updates with X-Update-Range), not to a temporary object: the part it received
            // before the gateway cut a refused write would stay applied.
            return new Answer(Problem.of(Outcome.BAD_REQUEST, head.method() + " with " + inPlace + " is not served: a store that"
                    + " writes a range in place keeps what it received before a write is cut; send the whole object"), false);
        }
        String chunked = firstOf(head, OC_CHUNKED);
        if (chunked != null) {
            // ownCloud's chunked upload: the store assembles the chunks into an object named by a
            // prefix of this one's path, whose fence nobody checked; a TUS upload, into the file
            // its metadata names.
            return new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, head.method() + " with " + chunked + " is not served:"
                    + " the store assembles its chunks into another object than the one the path names; send the whole object"),
                    false);
        }
        String fanOut = null;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = head.headers().iteratorCharSequence(); it.hasNext() && fanOut == null; ) {
            CharSequence name = it.next().getKey();
            fanOut = fansOut(name) ? name.toString() : null;
        }
        if (fanOut != null) {
            // Any value: MinIO extracts when the header's value merely contains "true".
            return new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, head.method() + " with " + fanOut + " is not served: an S3"
                    + " store that honours it (MinIO, RustFS) deletes or writes objects other than the one the path names,"
                    + " whose fences the gateway does not check; write and delete each object through the gateway"), false);
        }
        if (head.uri().indexOf('#') >= 0) {
            // A fragment is no part of a request target: a server that drops it (Jetty) would act on
            // another path or query than the one checked (POST /b?x#&delete is POST /b?x there).
            return new Answer(Problem.of(Outcome.BAD_REQUEST, head.method() + " with '#' in its target is not served: a store"
                    + " may drop what follows it; send a '#' in a key as %23"), false);
        }
        String unencoded = unencodedInQuery(head.uri());
        if (unencoded != null) {
            // The path is checked with the key; a query the store cannot read would be refused by it
            // only after the fence went up, a change made for a write that never happened.
            return new Answer(Problem.of(Outcome.BAD_REQUEST, head.method() + " with " + unencoded
                    + " in its query is not served: percent-encode it"), false);
        }
        StoreIdentity.Identified identified = claims.identity().identify(head.method().name(), head.uri(),
                head.headers().get(HttpHeaderNames.HOST), head.headers().get(HeaderNames.DESTINATION));
        if (identified instanceof StoreIdentity.Identified.Refused refused) {
            return new Answer(refused.problem(), false);
        }
        boolean keysInBody = identified instanceof StoreIdentity.Identified.KeysInBody;
        Optional<String> form = isS3(claims.identity())
                ? S3Requests.formBody(head.method().name(), head.headers().getAll(HttpHeaderNames.CONTENT_TYPE), keysInBody)
                : Optional.empty();
        if (identified instanceof StoreIdentity.Identified.KeysInBody keys) {
            // A form there is another request than the XML's keys: refused before they are read.
            return form.isPresent() ? new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, form.get()), false)
                    : new DeleteObjects(keys.bucketPath());
        }
        ResourceKey object = ((StoreIdentity.Identified.Resource) identified).key();
        if (isS3(claims.identity())) {
            Optional<String> notS3 = S3Requests.notAnS3Write(head.method().name(), head.uri(), object.value());
            if (notS3.isPresent()) {
                // The store would refuse it, but only after the fence went up for a write that never happened. Before
                // the bucket POST refusal below, so that a POST of / is told it names no bucket.
                return new Answer(Problem.of(Outcome.BAD_REQUEST, notS3.get() + " (--store-kind " + claims.identity().kind()
                        + "): an S3 store would refuse it once its fence had gone up"), false);
            }
        }
        // An S3 browser-form upload (POST /bucket, multipart/form-data) names its object in a form
        // field. S3Proxy reads every field, file included, and keeps the last of a repeated one, so
        // a key field after the file part decides the object: the key is known only once the whole
        // body, of any size, has been read. Reading the form up to the file part would fence the
        // wrong object; buffering it whole has no bound. So such a POST is refused, whatever its
        // Content-Type says (stores parse it their own way): S3 has no other bucket POST to serve.
        if (isS3(claims.identity()) && head.method().name().equals("POST") && isBucket(object)) {
            return new Answer(Problem.of(Outcome.BUCKET_POST, "POST to the bucket " + object
                    + " is not served: an S3 browser-form upload names its object in the body, so it cannot be fenced;"
                    + " PUT /bucket/key instead"), false);
        }
        if (isS3(claims.identity())) {
            Optional<String> unfenceable = S3Requests.unfenceable(head.method().name(), head.uri(), object.value(),
                    head.headers().contains(S3Requests.RENAME_SOURCE), () -> List.copyOf(head.headers().names())).or(() -> form);
            if (unfenceable.isPresent()) {
                return new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, unfenceable.get()), false);
            }
        }
        if (claims.identity() instanceof GenericHttpIdentity) {
            // A store of unknown kind may be S3, whose RenameObject removes the object its header names,
            // and whose bucket configurations delete or replace objects later.
            // Behind an --upstream path, every path the store gets is deeper than a bucket's.
            boolean bucketLevel = ((GenericHttpIdentity) claims.identity()).upstreamPath().isEmpty();
            Optional<String> rename = S3Requests.renames(head.uri(), head.headers().contains(S3Requests.RENAME_SOURCE))
                    .or(() -> bucketLevel ? S3Requests.bucketConfiguration(head.uri(), object.value()) : Optional.empty())
                    .or(() -> bucketLevel ? S3Requests.bucketDelete(head.method().name(), object.value()) : Optional.empty());
            if (rename.isPresent()) {
                return new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, rename.get() + " (--store-kind http may front an S3 store)"),
                        false);
            }
        }
        if (claims.identity() instanceof WebDavIdentity) {
            // No WebDAV store reads S3's rename header; an S3 store behind this kind, set by mistake,
            // would rename. S3's queries never get here: the identity refuses a WebDAV write with a query.
            Optional<String> s3Only = S3Requests.renames(head.uri(), head.headers().contains(S3Requests.RENAME_SOURCE));
            if (s3Only.isPresent()) {
                return new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, s3Only.get()
                        + " (no WebDAV store reads it; an S3 store behind --store-kind webdav would)"), false);
            }
        }
        // Multipart uploads are S3's; the kinds that are not S3 refuse them, in case the store is S3 after all.
        UploadIds.Role upload = UploadIds.of(head.method().name(), head.uri());
        if (upload instanceof UploadIds.Role.Refused refused) {
            return new Answer(Problem.of(Outcome.BAD_REQUEST, refused.detail()), false);
        }
        if (!isS3(claims.identity()) && !(upload instanceof UploadIds.Role.None)) {
            // S3 finds an upload by its id alone, whatever key the request names: a step of another
            // object's upload, fenced as this one, would change it.
            return new Answer(Problem.of(Outcome.UNFENCEABLE_WRITE, "a multipart upload request ('uploads' or 'uploadId')"
                    + " is not served for --store-kind " + claims.identity().kind() + ": an S3 store finds an upload by its id"
                    + " alone, whatever object the path names; use --store-kind s3-path or s3-virtual-host, which tie each"
                    + " upload to its object"), false);
        }
        ClaimParser.ClaimParse parsed = claims.parse(object, head.headers().getAll(HeaderNames.FENCING_TOKEN),
                head.headers().getAll(HeaderNames.FENCING_HOLDER), head.headers().getAll(HeaderNames.FENCING_TOKEN_SIGNATURE));
        if (parsed instanceof ClaimParser.ClaimParse.Refused refused) {
            return new Answer(refused.problem(), false);
        }
        FenceClaim claim = ((ClaimParser.ClaimParse.Valid) parsed).claim();
        if (upload instanceof UploadIds.Role.None) {
            return new Fenced(claim);
        }
        // The object itself, not its job scope: an upload belongs to one key.
        return upload instanceof UploadIds.Role.Continues step ? new FencedUploadStep(claim, object, step.uploadId())
                : new FencedUploadStart(claim, object);
    }

    private static boolean isS3(StoreIdentity identity) {
        return identity instanceof S3StoreIdentity;
    }

    /** A key of one segment, {@code /bucket}: the bucket itself, not an object in it. */
    private static boolean isBucket(ResourceKey key) {
        return key.value().indexOf('/', 1) < 0;
    }

    /**
     * The first control or non-ASCII character in the target's query, a '%' that does not begin an
     * escape, or escapes that decode to no UTF-8 text (overlong or broken sequences), described; null
     * when there is none. Servers refuse such a query (Jetty answers 400), but only after the fence
     * went up.
     */
    static String unencodedInQuery(String target) {
        int query = target.indexOf('?');
        if (query < 0) {
            return null;
        }
        ByteArrayOutputStream decoded = null;
        for (int i = query + 1; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                return "character " + FencingHeaders.describe(c) + " at position " + i;
            }
            if (c == '%') {
                if (i + 2 >= target.length() || Character.digit(target.charAt(i + 1), 16) < 0
                        || Character.digit(target.charAt(i + 2), 16) < 0) {
                    return "a '%' at position " + i + " that does not begin an escape of two hexadecimal digits";
                }
                if (decoded == null) {
                    decoded = new ByteArrayOutputStream(target.length() - query);
                }
                decoded.write(Character.digit(target.charAt(i + 1), 16) << 4 | Character.digit(target.charAt(i + 2), 16));
                i += 2;
            } else if (decoded != null) {
                decoded.write(c);
            }
        }
        if (decoded != null) {
            try {
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(decoded.toByteArray()));
            } catch (CharacterCodingException e) {
                return "escapes that decode to no UTF-8 text (an overlong or broken sequence)";
            }
        }
        return null;
    }

    private static boolean hasBody(HttpRequest head) {
        return HttpUtil.isTransferEncodingChunked(head) || HttpUtil.getContentLength(head, 0L) > 0;
    }
}
