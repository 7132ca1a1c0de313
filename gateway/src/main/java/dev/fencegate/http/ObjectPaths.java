package dev.fencegate.http;

import dev.fencegate.fence.ResourceKey;
import java.util.Optional;

/** The pieces the store kinds share: the canonical path, collection paths, S3 object and bucket paths. */
final class ObjectPaths {

    /** The length of a UUID in its canonical form, {@code 8-4-4-4-12} hexadecimal digits. */
    private static final int UUID_LENGTH = 36;
    /** nginx names a copied body after its object, a '.' and a counter printed as {@code %010uD}: ten digits. */
    private static final int NGINX_COPY_DIGITS = 10;
    /** versitygw's folder for multipart parts and bodies under way, in every bucket, and the mark of its link names. */
    private static final String SGWTMP = ".sgwtmp";
    /** What MinIO writes in place of a key's final '/'. */
    private static final String MINIO_FOLDER = "__XLDIR__";
    /** SeaweedFS's folder for multipart uploads, the first segment of a key in every bucket. */
    private static final String SEAWEED_UPLOADS = ".uploads";
    /** What SeaweedFS adds to a key to name the folder of its versions, and of the pointer to the latest. */
    private static final String SEAWEED_VERSIONS = ".versions";
    /** The length of a bucket's internal id in Garage, hexadecimal digits, which it takes wherever a bucket's name goes. */
    private static final int GARAGE_BUCKET_ID_LENGTH = 64;

    private ObjectPaths() {
    }

    /** The canonical path of a target, or the ambiguous-path refusal. */
    static StoreIdentity.Identified canonical(String target) {
        ResourcePaths.PathParse path = ResourcePaths.canonicalise(target);
        if (path instanceof ResourcePaths.PathParse.Refused refused) {
            return refused(Outcome.AMBIGUOUS_PATH, "request target refused: " + refused.detail());
        }
        return new StoreIdentity.Identified.Resource(((ResourcePaths.PathParse.Canonical) path).key());
    }

    /**
     * A path ending in '/' names a collection: WebDAV's DELETE removes everything under it, each
     * object with a fence of its own, and a store of unknown kind may do the same.
     */
    static StoreIdentity.Identified refuseCollection(StoreIdentity.Identified identified, String kind) {
        if (identified instanceof StoreIdentity.Identified.Resource resource && resource.key().value().endsWith("/")) {
            return refused(Outcome.AMBIGUOUS_PATH, "a write to a collection path ('" + resource.key()
                    + "' ends in '/') would change every object under it; not served for --store-kind " + kind);
        }
        return identified;
    }

    /**
     * A file store's object, for the kinds whose store may be a WebDAV file server: a collection
     * path is refused ({@link #refuseCollection}), and so is a name the store keeps for its own
     * workings beside the objects. Apache mod_dav_fs writes a PUT's body to
     * {@code .davfs.tmpXXXXXX} in the object's folder and renames it onto the object when the body
     * ends, so a write of that name while a holder's PUT is under way becomes the holder's object;
     * it keeps properties and locks under {@code .DAV}. Apache httpd reads per-directory
     * configuration from {@code .htaccess} where {@code AllowOverride} lets it, which can turn on
     * {@code MultiViews} and so send a write of {@code /b/report} to {@code /b/report.txt}: every
     * segment starting {@code .ht}, in any case, is refused. nginx's dav module, when its
     * {@code client_body_temp_path} is on another file system than its root, copies a PUT's body
     * to {@code <object>.<10 digits>} beside the object and renames that onto the object, so a
     * write of that name while the copy runs becomes the holder's object as well;
     * {@code allowTemporaryNames} ({@code --allow-temporary-names}, for a store whose bodies
     * never take that way) lets such a name through.
     */
    static StoreIdentity.Identified fileObject(StoreIdentity.Identified identified, String kind, boolean allowTemporaryNames) {
        StoreIdentity.Identified object = refuseCollection(identified, kind);
        if (object instanceof StoreIdentity.Identified.Resource resource) {
            String path = resource.key().value();
            for (String segment : path.split("/")) {
                if (segment.startsWith(".davfs.") || segment.equals(".DAV")) {
                    return refused(Outcome.UNFENCEABLE_WRITE, "'" + segment + "' is a name a WebDAV file store (Apache"
                            + " mod_dav_fs) keeps for its own temporary files and properties: a write there can change"
                            + " another object; not served for --store-kind " + kind);
                }
                if (segment.regionMatches(true, 0, ".ht", 0, 3)) {
                    return refused(Outcome.UNFENCEABLE_WRITE, "'" + segment + "' is a name Apache httpd reads its"
                            + " per-directory configuration from (.htaccess, and the .ht* files its stock configuration"
                            + " keeps from clients): a write there can send other paths to other files (Options"
                            + " MultiViews), so a write to one object lands on another; not served for --store-kind " + kind);
                }
            }
            int last = path.lastIndexOf('/') + 1;
            if (!allowTemporaryNames && isCopyName(path, last)) {
                return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(last) + "' ends in '.' and ten digits,"
                        + " the name nginx's WebDAV store copies a PUT of the object before it to when its body was kept on"
                        + " another file system: a write there can become that object; name the object otherwise, or, if the"
                        + " store's request bodies are kept on the file system of its objects, set --allow-temporary-names");
            }
        }
        return object;
    }

    /** {@code <name>.<10 ASCII digits>}, nginx's name for a body it copies beside the object (read on every write: no regular expression). */
    static boolean isCopyName(String segment) {
        return isCopyName(segment, 0);
    }

    /** Whether the last segment of {@code text}, from {@code from} to its end, is {@link #isCopyName(String) such a name}. */
    private static boolean isCopyName(String text, int from) {
        int start = text.length() - NGINX_COPY_DIGITS;
        if (start < from + 2 || text.charAt(start - 1) != '.') {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * S3 stores resolve {@code obj/} to {@code obj} (S3Proxy) or keep both (AWS): one fence covers
     * both. The names a store keeps for itself are looked for without the '/': S3Proxy's file store
     * takes {@code <temporary name>/} for a folder at the temporary file's path, and writes the
     * request's metadata onto that file.
     */
    static StoreIdentity.Identified s3Object(StoreIdentity.Identified identified, boolean allowTemporaryNames) {
        StoreIdentity.Identified object = identified;
        if (object instanceof StoreIdentity.Identified.Resource resource) {
            String path = resource.key().value();
            if (path.length() > 1 && path.endsWith("/")) {
                object = new StoreIdentity.Identified.Resource(new ResourceKey(path.substring(0, path.length() - 1)));
            }
        }
        return refuseS3FileStoreNames(object, allowTemporaryNames);
    }

    /**
     * A name an S3 file store keeps for its own workings beside the objects is refused, for the
     * kinds whose store is or may be S3: S3Proxy's file store writes a PUT's body to
     * {@code <key>-<random UUID>} and renames it onto the object when the body ends, so a write of
     * that name while a holder's PUT is under way becomes the holder's object; it keeps multipart
     * parts as {@code .mpus-...} and versions and keys ending in '/' under {@code .s3proxy-...}
     * (either case: a file system may not tell cases apart). versitygw's posix store keeps
     * multipart parts, and some PUTs' bodies, under {@code .sgwtmp} in the bucket, and links a new
     * object through {@code .<name>.sgwtmp.<nanoseconds>} beside it; MinIO keeps a key ending in
     * '/' as {@code <key>__XLDIR__}, so a write of that name is a write of the other; SeaweedFS
     * keeps a bucket's multipart uploads, their metadata on the folder, under {@code .uploads} at
     * the bucket's root, and an object's versions and the pointer to its latest under
     * {@code <key>.versions}. Garage reads a bucket name of 64 hexadecimal digits as a bucket's
     * internal id, so a key under such a name is a second name for an object of another bucket.
     * {@code allowTemporaryNames} ({@code --allow-temporary-names}, for a store with no files of
     * its own among the objects) lets S3Proxy's temporary name through.
     */
    static StoreIdentity.Identified refuseS3FileStoreNames(StoreIdentity.Identified identified, boolean allowTemporaryNames) {
        return refuseS3FileStoreNames(identified, "", allowTemporaryNames);
    }

    /**
     * As {@link #refuseS3FileStoreNames(StoreIdentity.Identified, boolean)}, for a store that gets
     * every path behind {@code storePrefix} (the path {@code --upstream} adds under {@code http};
     * empty for none): the names are looked for where the store reads them, its bucket being the
     * first segment of the prefix, if it has one.
     */
    static StoreIdentity.Identified refuseS3FileStoreNames(StoreIdentity.Identified identified, String storePrefix,
                                                          boolean allowTemporaryNames) {
        if (identified instanceof StoreIdentity.Identified.Resource resource) {
            // Read in place, segment by segment: no array or substring per write.
            String path = storePrefix.isEmpty() ? resource.key().value() : storePrefix + resource.key().value();
            int keyStart = path.indexOf('/', 1) + 1; // after the bucket; 0 for a bucket alone
            // Behind a prefix the bucket is the operator's choice, the same for every write.
            if (storePrefix.isEmpty() && keyStart == GARAGE_BUCKET_ID_LENGTH + 2 && isHex(path, 1, keyStart - 1)) {
                return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(1, keyStart - 1) + "' is 64 hexadecimal digits,"
                        + " which an S3 store (Garage) reads as a bucket's internal id: a key under it is a second name for"
                        + " an object of the bucket with that id; name the bucket by its name");
            }
            for (int start = 0; start < path.length(); start = segmentEnd(path, start) + 1) {
                int end = segmentEnd(path, start);
                if (path.regionMatches(true, start, ".mpus-", 0, 6) || path.regionMatches(true, start, ".s3proxy-", 0, 9)) {
                    return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(start, end)
                            + "' is a name an S3 file store (S3Proxy) keeps for its own multipart parts and versions:"
                            + " a write there can change another object");
                }
                if (path.charAt(start) == '.' && (end - start == SGWTMP.length() && path.regionMatches(true, start, SGWTMP, 0, SGWTMP.length())
                        || containsIgnoringCase(path, start, end, SGWTMP + "."))) {
                    return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(start, end)
                            + "' is a name an S3 file store (versitygw) keeps for its own multipart parts and new objects:"
                            + " a write there can change another object");
                }
                if (start == keyStart && end - start == SEAWEED_UPLOADS.length()
                        && path.regionMatches(true, start, SEAWEED_UPLOADS, 0, SEAWEED_UPLOADS.length())
                        || end - start > SEAWEED_VERSIONS.length()
                        && path.regionMatches(true, end - SEAWEED_VERSIONS.length(), SEAWEED_VERSIONS, 0, SEAWEED_VERSIONS.length())) {
                    return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(start, end)
                            + "' is a name an S3 store (SeaweedFS) keeps a bucket's multipart uploads, or an object's versions"
                            + " and which of them is the latest, under: a write there can change another object or upload");
                }
            }
            int last = path.lastIndexOf('/') + 1;
            if (path.regionMatches(true, path.length() - MINIO_FOLDER.length(), MINIO_FOLDER, 0, MINIO_FOLDER.length())
                    && path.length() - MINIO_FOLDER.length() >= last) {
                return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(last) + "' ends in " + MINIO_FOLDER
                        + ", the name an S3 store (MinIO) keeps the key before it with a '/' at its end under: a write of it"
                        + " is a write of that other key");
            }
            if (!allowTemporaryNames && isTemporaryName(path, last)) {
                return refused(Outcome.UNFENCEABLE_WRITE, "'" + path.substring(last) + "' ends in '-' and a UUID,"
                        + " the name an S3 file store (S3Proxy) writes a PUT of the object before it to until its body ends:"
                        + " a write there can become that object; name the object otherwise (the UUID first, or after a '.'),"
                        + " or, if the store is not S3Proxy's file store, set --allow-temporary-names");
            }
        }
        return identified;
    }

    /** {@code <name>-<UUID>}, the UUID in its canonical form, either case (read on every write: no regular expression). */
    static boolean isTemporaryName(String segment) {
        return isTemporaryName(segment, 0);
    }

    /** Whether the last segment of {@code text}, from {@code from} to its end, is {@link #isTemporaryName(String) such a name}. */
    private static boolean isTemporaryName(String text, int from) {
        int start = text.length() - UUID_LENGTH;
        if (start < from + 2 || text.charAt(start - 1) != '-') {
            return false;
        }
        for (int i = 0; i < UUID_LENGTH; i++) {
            char c = text.charAt(start + i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : !isHexDigit(c)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code text} is hexadecimal digits only, either case, from {@code start} to {@code end}. */
    private static boolean isHex(String text, int start, int end) {
        for (int i = start; i < end; i++) {
            if (!isHexDigit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a canonical path holds a '%' (kept as {@code %25}) followed by two hexadecimal
     * digits: a key that a second decoding would change.
     */
    static boolean holdsAnEscapeOnceDecoded(String canonical) {
        for (int i = canonical.indexOf("%25"); i >= 0 && i + 5 <= canonical.length(); i = canonical.indexOf("%25", i + 3)) {
            if (isHexDigit(canonical.charAt(i + 3)) && isHexDigit(canonical.charAt(i + 4))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isHexDigit(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    /** Whether {@code path} holds {@code needle}, in either case, between {@code start} and {@code end}. */
    private static boolean containsIgnoringCase(String path, int start, int end, String needle) {
        for (int i = start; i + needle.length() <= end; i++) {
            if (path.regionMatches(true, i, needle, 0, needle.length())) {
                return true;
            }
        }
        return false;
    }

    /** Where the segment starting at {@code start} ends: the next '/', or the end of {@code path}. */
    private static int segmentEnd(String path, int start) {
        int slash = path.indexOf('/', start);
        return slash < 0 ? path.length() : slash;
    }

    /** A DeleteObjects request on a canonical path: it must name exactly a bucket, {@code /bucket} or {@code /bucket/}. */
    static StoreIdentity.Identified deleteObjects(StoreIdentity.Identified path) {
        if (!(path instanceof StoreIdentity.Identified.Resource resource)) {
            return path;
        }
        Optional<String> bucketPath = S3Requests.bucketPath(resource.key().value());
        if (bucketPath.isEmpty()) {
            // An SDK left in virtual-host style sends POST /?delete with the bucket in a Host no listed domain covers.
            return refused(Outcome.AMBIGUOUS_PATH, "DeleteObjects must target a bucket: POST /bucket?delete, path-style"
                    + " (an S3 client in virtual-host style names the bucket in the Host instead: set forcePathStyle(true))");
        }
        return new StoreIdentity.Identified.KeysInBody(bucketPath.get());
    }

    /** The path a key takes in a bucket, as clients put it in a PUT's target, canonicalised like one. */
    static StoreIdentity.Identified keyPath(String bucketPath, String key) {
        return canonical(DeleteObjectsKeys.target(bucketPath, key));
    }

    static StoreIdentity.Identified refused(Outcome outcome, String detail) {
        return new StoreIdentity.Identified.Refused(Problem.of(outcome, detail));
    }
}
