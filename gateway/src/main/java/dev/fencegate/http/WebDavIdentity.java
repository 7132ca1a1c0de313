package dev.fencegate.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

/**
 * A WebDAV store such as nginx's dav module ({@code --store-kind webdav}). It decodes every
 * percent-escape and serves one namespace whatever the Host, so the object is the canonical path.
 * {@code DELETE /dir/} removes the whole collection, each object under it with its own fence, so
 * writes on collection paths are refused. A POST, or a write with a query, is none WebDAV defines
 * and is refused ({@link #notAWebDavWrite}); S3's DeleteObjects ({@code POST ?delete}) is named as
 * such, in case the store is S3 after all, set up under this kind by mistake. MOVE and COPY also write the object their Destination
 * header names, and MKCOL, PROPPATCH, LOCK and UNLOCK change collections and properties: refused.
 *
 * @param allowTemporaryNames {@code --allow-temporary-names}: a name ending in '.' and ten digits is an object of its own
 */
public record WebDavIdentity(boolean allowTemporaryNames) implements StoreIdentity {

    private static final Set<String> COLLECTION_AND_COPY_METHODS = Set.of("MOVE", "COPY", "MKCOL", "PROPPATCH", "LOCK", "UNLOCK");

    /** A WebDAV store with nginx's copy names refused. */
    public WebDavIdentity() {
        this(false);
    }

    @Override
    public Identified identify(String method, String target, String host, String destination) {
        if (S3Requests.isDeleteObjects(method, target)) {
            return ObjectPaths.refused(Outcome.UNFENCEABLE_WRITE, "a POST ?delete is S3's DeleteObjects, which no WebDAV"
                    + " store serves and an S3 store behind --store-kind webdav, set by mistake, would carry out on the keys"
                    + " its body names, unfenced; delete each object with a DELETE of its own");
        }
        if (COLLECTION_AND_COPY_METHODS.contains(method)) {
            return ObjectPaths.refused(Outcome.METHOD_NOT_ALLOWED, method + " is not served for --store-kind webdav"
                    + (destination == null ? "" : ": it would also write " + destination + ", a second object"));
        }
        Identified identified = notADoubleEncoding(ObjectPaths.fileObject(ObjectPaths.canonical(target), kind(), allowTemporaryNames));
        if (identified instanceof Identified.Refused) {
            return identified;
        }
        return notAWebDavWrite(method, target).<Identified>map(why -> ObjectPaths.refused(Outcome.UNFENCEABLE_WRITE, why))
                .orElse(identified);
    }

    /**
     * Refuses a name that is another's double encoding. SabreDAV 1.8 takes a path that PHP's
     * encoding detection calls ISO-8859-1 for Latin-1 and encodes it to UTF-8 again, and PHP 8.1 and
     * later call many valid UTF-8 names so ({@code fiı le} without the space): {@code /b/fi%C4%B1le}
     * is then the file {@code fiÄ±le}, which {@code /b/fi%C3%84%C2%B1le} names too, one file with two
     * fences. Such a second spelling has only characters up to U+00FF outside ASCII, whose bytes read
     * as Latin-1 are valid UTF-8; no two names encode again to the same one, so with it refused each
     * file has one key. A name like {@code café} is not refused: its {@code é} alone is no UTF-8.
     */
    private static Identified notADoubleEncoding(Identified identified) {
        if (identified instanceof Identified.Resource resource && isDoubleEncoding(resource.key().value())) {
            return ObjectPaths.refused(Outcome.AMBIGUOUS_PATH, "request target refused: its name, read as Latin-1, is the"
                    + " UTF-8 of another name, and a store that encodes a name it takes for Latin-1 again (SabreDAV) would"
                    + " write that other name's file");
        }
        return identified;
    }

    /** Whether a key's non-ASCII characters are all Latin-1 and, as Latin-1 bytes, valid UTF-8. */
    static boolean isDoubleEncoding(String key) {
        if (key.indexOf('%') < 0) {
            return false;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '%' && i + 2 < key.length()) {
                bytes.write(Integer.parseInt(key, i + 1, i + 3, 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        String name = bytes.toString(StandardCharsets.UTF_8);
        ByteArrayOutputStream latin1 = new ByteArrayOutputStream(name.length());
        boolean nonAscii = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0xFF) {
                return false;
            }
            nonAscii |= c >= 0x80;
            latin1.write(c);
        }
        if (!nonAscii) {
            return false;
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(latin1.toByteArray()));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /**
     * Why a write is none WebDAV defines, which a WebDAV store may still serve on other objects
     * than its path names; empty for the others. A POST: WebDAV defines none, and the stores that
     * serve one write what its body names (SabreDAV's browser plugin a file named in a form field,
     * Nextcloud's bulk upload the paths its parts name). A query: no WebDAV write takes one, and a
     * store that keeps it in the file's name (SabreDAV 1.8, Debian 12's) writes {@code /b/q?v=1},
     * another object than the {@code /b/q} the gateway would fence.
     */
    private static Optional<String> notAWebDavWrite(String method, String target) {
        if (method.equals("POST")) {
            return Optional.of("a POST is no WebDAV write (--store-kind webdav): the stores that serve one write the objects"
                    + " its body names, not its path; write each object with a PUT of its own");
        }
        if (target.indexOf('?') >= 0) {
            return Optional.of(method + " with a query is no WebDAV write (--store-kind webdav): a store that keeps the query"
                    + " in the file's name writes another object than the one the path names; percent-encode a '?' in a name");
        }
        return Optional.empty();
    }

    @Override
    public Identified keyInBucket(String bucketPath, String key) {
        return ObjectPaths.fileObject(ObjectPaths.keyPath(bucketPath, key), kind(), allowTemporaryNames);
    }

    @Override
    public Optional<String> deleteDepth() {
        return Optional.of("0");
    }

    /** The Host is not part of the resource: the store gets the one {@code --upstream} names. */
    @Override
    public boolean storeGetsTheClientsHost() {
        return false;
    }

    @Override
    public String kind() {
        return "webdav";
    }
}
