package dev.fencegate.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/** What an S3 request is, where the fence needs to know more than its path. */
public final class S3Requests {

    private S3Requests() {
    }

    /**
     * DeleteObjects: a POST whose query has a {@code delete} parameter. Names are compared
     * percent-decoded, as the store's server decodes them ({@code ?%64elete} is {@code ?delete}).
     */
    public static boolean isDeleteObjects(String method, String target) {
        return method.equals("POST") && hasParameter(target, "delete");
    }

    /** The header RenameObject names the object it removes in. */
    public static final String RENAME_SOURCE = "x-amz-rename-source";

    /**
     * Why a write to {@code key} would change objects other than the one its path names, so that
     * no fence of it can stand for what it does; empty for a write that changes only its object.
     * <ul>
     * <li>RenameObject ({@code ?renameObject}, {@code x-amz-rename-source}) removes its source.</li>
     * <li>A bucket's configuration ({@code PUT /bucket?lifecycle}, replication, object lock,
     * policy...) later deletes, replaces or locks objects under fences the gateway never checks.
     * Creating a bucket ({@code PUT /bucket} with no query) stays fenced as the bucket, unless it
     * carries such configuration in its headers ({@code headerNames}, read only for a bucket).</li>
     * <li>DeleteBucket: SeaweedFS, as it ships ({@code -s3.allowDeleteBucketNotEmpty}), deletes a
     * bucket with its objects, and the objects' fences are not the bucket's.</li>
     * </ul>
     * Form bodies are {@link #formBody}'s.
     */
    public static Optional<String> unfenceable(String method, String target, String key, boolean renameSource,
                                               Supplier<List<String>> headerNames) {
        Optional<String> rename = renames(target, renameSource);
        if (rename.isPresent()) {
            return rename;
        }
        boolean bucket = key.indexOf('/', 1) < 0;
        int query = target.indexOf('?');
        Optional<String> bucketDelete = bucketDelete(method, key);
        if (bucketDelete.isPresent()) {
            return bucketDelete;
        }
        if (bucket && query >= 0 && query < target.length() - 1) {
            return Optional.of("bucket configuration (" + target.substring(query) + ") can delete, replace or lock objects"
                    + " later, under fences the gateway never checks; change it at the store, not through the gateway");
        }
        Optional<String> setting = bucket ? headerNames.get().stream().filter(S3Requests::configuresABucket).findFirst()
                : Optional.empty();
        if (setting.isPresent()) {
            return Optional.of("bucket configuration (" + setting.get() + ", set as the bucket is created) can let writes in or"
                    + " lock objects later, under fences the gateway never checks; create the bucket at the store, not through"
                    + " the gateway");
        }
        return Optional.empty();
    }

    /**
     * Why a DELETE of the one-segment {@code key} may delete more than its own object: to an S3
     * store it is DeleteBucket, which some stores apply to a bucket with every object still in it
     * (SeaweedFS as it ships); empty for any other write.
     */
    public static Optional<String> bucketDelete(String method, String key) {
        if (method.equals("DELETE") && key.indexOf('/', 1) < 0) {
            return Optional.of("a DELETE of a top-level path is DeleteBucket to an S3 store, and some delete a bucket with every"
                    + " object still in it (SeaweedFS as it ships), under fences the gateway never checks; delete the objects"
                    + " through the gateway and the bucket at the store");
        }
        return Optional.empty();
    }

    /**
     * S3's bucket configurations that delete, replace, lock or let in objects later ({@code ?lifecycle},
     * {@code ?replication}, {@code ?policy}...), or say how a bucket's objects are kept.
     */
    private static final List<String> BUCKET_CONFIGURATIONS = List.of("accelerate", "acl", "analytics", "cors", "encryption",
            "intelligent-tiering", "inventory", "lifecycle", "logging", "metadataTable", "metrics", "notification", "object-lock",
            "ownershipControls", "policy", "publicAccessBlock", "replication", "requestPayment", "tagging", "versioning", "website");

    /**
     * For a store of unknown kind, which may be S3: why a write of the one-segment {@code key} is a
     * change of a bucket's configuration, named by a query parameter S3 reads as one; empty for any
     * other. A top-level path with another query is a write like any other.
     */
    public static Optional<String> bucketConfiguration(String target, String key) {
        return key.indexOf('/', 1) >= 0 ? Optional.empty() : anyBucketConfiguration(target);
    }

    /** Why a write's query names a bucket configuration S3 reads, whatever the depth of its path; empty when it names none. */
    private static Optional<String> anyBucketConfiguration(String target) {
        for (String configuration : BUCKET_CONFIGURATIONS) {
            if (hasParameter(target, configuration)) {
                return Optional.of("an S3 bucket's configuration (?" + configuration + ") can delete, replace or lock objects"
                        + " later, under fences the gateway never checks; change it at the store, not through the gateway");
            }
        }
        return Optional.empty();
    }

    /**
     * Why a write is a RenameObject ({@code ?renameObject}, or {@code renameSource}: it carries
     * {@link #RENAME_SOURCE}), which removes the object that header names; empty for any other.
     */
    public static Optional<String> renames(String target, boolean renameSource) {
        if (renameSource || hasParameter(target, "renameObject")) {
            return Optional.of("RenameObject removes its source object, whose fence the gateway does not check;"
                    + " copy it (CopyObject) and delete the source through the gateway instead");
        }
        return Optional.empty();
    }

    /**
     * Headers CreateBucket takes as the bucket's configuration, as {@code ?acl} or {@code ?object-lock}
     * would set it: its ACL and grants, object lock, object ownership.
     */
    private static boolean configuresABucket(String headerName) {
        String name = headerName.toLowerCase(Locale.ROOT);
        return name.equals("x-amz-acl") || name.startsWith("x-amz-grant-") || name.equals("x-amz-bucket-object-lock-enabled")
                || name.equals("x-amz-object-ownership");
    }

    /**
     * Why a write's body would be read as a form, so that it may be another request than the one
     * fenced; empty when no Content-Type it carries declares one. Every Content-Type field counts,
     * compared in lower case with its white space removed, since stores pick one their own way.
     * <ul>
     * <li>Form-encoded, on any write: servlet-based stores (S3Proxy on Jetty) read request
     * parameters from its body as from the query, so {@code uploads=}, {@code uploadId=} or
     * {@code acl=} there would make it a step of another object's multipart upload, past the check
     * that an upload id goes with its own object, or a change of a bucket's configuration.</li>
     * <li>Multipart form data, on any write, and any multipart body on a DeleteObjects
     * ({@code bodyIsXml}): S3Proxy takes an unsigned POST to a bucket for a browser-form upload
     * whatever its query says, so a DeleteObjects whose body is also a form would be fenced for the
     * keys of its XML while the store writes the form's key.</li>
     * </ul>
     * No S3 operation needs a form body: an object of such a type is sent with another one. Other
     * multipart types name an object's own type (CreateMultipartUpload of a {@code multipart/related}
     * page) and pass, except on a DeleteObjects, whose body is the gateway's to read as XML.
     */
    public static Optional<String> formBody(String method, List<String> contentTypes, boolean bodyIsXml) {
        for (String contentType : contentTypes) {
            String type = withoutWhiteSpace(contentType.toLowerCase(Locale.ROOT));
            if (type.contains("form-urlencoded") || type.contains("multipart/form-data")
                    || bodyIsXml && type.contains("multipart/")) {
                return Optional.of("a " + method + " whose body is a form (Content-Type " + contentType + "): some S3 servers"
                        + " read a form's fields (key, uploadId, uploads, delete, acl...) as the request's own, so it may be"
                        + " another request than the one fenced; send the body with another Content-Type, such as"
                        + " application/octet-stream");
            }
        }
        return Optional.empty();
    }

    /** {@code text} without its white space ({@code \\s}); the same string, not a copy, when it has none. */
    private static String withoutWhiteSpace(String text) {
        StringBuilder kept = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean white = c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
            if (white && kept == null) {
                kept = new StringBuilder(text.length()).append(text, 0, i);
            } else if (!white && kept != null) {
                kept.append(c);
            }
        }
        return kept == null ? text : kept.toString();
    }

    /**
     * The queries with which S3 takes a POST to an object: CreateMultipartUpload, its completion,
     * RestoreObject, SelectObjectContent; as S3 reads them, by their exact names between '&'s.
     */
    private static final List<String> OBJECT_POSTS = List.of("uploads", "uploadId", "restore", "select");

    /**
     * Why a write to the object {@code key} has a form S3 defines for no write, so that an S3 store
     * refuses it (S3Proxy with 400 or 501), but only after its fence went up: a write whose key is
     * {@code /}, which names no bucket (path-style, where S3 defines no write on the service root;
     * a bucket named by its Host is in the key, {@code /bucket}), a PATCH, a POST with none of S3's
     * object POST queries, a {@code partNumber} that is not a part number (1 to 10000); empty for
     * any other write.
     */
    public static Optional<String> notAnS3Write(String method, String target, String key) {
        if (key.equals("/")) {
            return Optional.of("a " + method + " of '/' names no bucket, and S3 defines no write on the service root;"
                    + " name the bucket, /bucket or /bucket/key");
        }
        if (method.equals("PATCH")) {
            return Optional.of("PATCH is no S3 request");
        }
        if (method.equals("POST") && key.indexOf('/', 1) >= 0 && OBJECT_POSTS.stream().noneMatch(name -> hasParameter(target, name))) {
            return Optional.of("a POST to an object is S3's only with ?uploads, ?uploadId, ?restore or ?select");
        }
        int query = target.indexOf('?');
        for (String parameter : query < 0 ? new String[0] : target.substring(query + 1).split("&", -1)) {
            String[] pair = parameter.split("=", 2);
            if ("partnumber".equalsIgnoreCase(decoded(pair[0])) && !isPartNumber(pair.length == 2 ? decoded(pair[1]) : "")) {
                return Optional.of("partNumber '" + (pair.length == 2 ? pair[1] : "") + "' is no part number (1 to 10000)");
            }
        }
        return Optional.empty();
    }

    private static boolean isPartNumber(String value) {
        if (value == null || value.isEmpty() || value.length() > 5 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        int number = Integer.parseInt(value);
        return number >= 1 && number <= 10_000;
    }

    /** Whether the query has a parameter of this name, compared percent-decoded as the store's server does. */
    private static boolean hasParameter(String target, String expected) {
        int query = target.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (String parameter : target.substring(query + 1).split("&", -1)) {
            String name = parameter.split("=", 2)[0];
            if (decodedEquals(name, expected)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The bucket path of a DeleteObjects target: exactly one segment, {@code /bucket} or
     * {@code /bucket/}. Some stores delete in the first segment's bucket whatever follows it, so
     * anything longer is refused rather than guessed.
     */
    public static Optional<String> bucketPath(String target) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.length() < 2 || path.charAt(0) != '/' || path.indexOf('/', 1) >= 0) {
            return Optional.empty();
        }
        return Optional.of(path);
    }

    /**
     * The name of the first query parameter that is one of {@code names} (lower case), compared
     * percent-decoded and in either case, the query split at '&' or ';' as web frameworks split it;
     * null when there is none.
     */
    public static String parameterNamed(String target, List<String> names) {
        int query = target.indexOf('?');
        if (query < 0) {
            return null;
        }
        for (int start = query + 1; start <= target.length(); ) {
            int end = start;
            while (end < target.length() && target.charAt(end) != '&' && target.charAt(end) != ';') {
                end++;
            }
            int equals = target.indexOf('=', start);
            String encoded = target.substring(start, equals < 0 || equals > end ? end : equals);
            String decoded = decoded(encoded);
            String name = (decoded == null ? encoded : decoded).toLowerCase(Locale.ROOT);
            if (names.contains(name)) {
                return name;
            }
            start = end + 1;
        }
        return null;
    }

    private static boolean decodedEquals(String encoded, String expected) {
        return expected.equals(decoded(encoded));
    }

    /** {@code encoded} percent-decoded, '+' read as a space; null when an escape is malformed. */
    private static String decoded(String encoded) {
        if (encoded.indexOf('%') < 0 && encoded.indexOf('+') < 0) {
            return encoded;
        }
        try {
            return java.net.URLDecoder.decode(encoded, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
