package dev.fencegate.http;

import dev.fencegate.fence.ResourceKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns a request target into the canonical path a write's resource is named from. The stores
 * behind the gateway (nginx WebDAV, S3 servers, servlet stores) decode every percent-escape, so
 * every spelling of one decoded path gets one key: each octet is decoded, then written one fixed
 * way, literal if it is unreserved or one of {@code ! $ & ' ( ) * , = : @} (as curl sends them),
 * else as an upper-case escape (so {@code %3d} and {@code =} meet, and {@code +} and {@code ;}
 * appear only as {@code %2B} and {@code %3B}). Spellings whose meaning differs between stores
 * (encoded or doubled slashes, dot segments, backslashes, control characters, bad UTF-8, a raw
 * '+' or ';') are refused. Merging spellings is the safe direction: a store that kept them apart
 * would only see one fence where it has two objects, never two fences for one object.
 */
public final class ResourcePaths {

    /** Either the canonical key, or why the target was refused. */
    public sealed interface PathParse {
        record Canonical(ResourceKey key) implements PathParse {
        }

        record Refused(String detail) implements PathParse {
        }
    }

    /**
     * Longest canonical path a key is made from, in characters (ASCII: one byte each). Fence and
     * registration rows are indexed by the key, and a B-tree entry must fit in a third of a page
     * (about 2,700 bytes, uncompressed for a key that does not compress); raises are announced with
     * it, in notices of under 8,000 bytes. A bucket named by the Host adds at most 64 to it.
     */
    public static final int MAX_KEY_LENGTH = 2_560;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ResourcePaths() {
    }

    /** The key of an origin-form target ({@code /path?query}); the query is not part of it. */
    public static PathParse canonicalise(String target) {
        if (target.isEmpty() || target.charAt(0) != '/') {
            return refused("expected an origin-form target starting with '/'");
        }
        int queryAt = target.indexOf('?');
        String path = queryAt < 0 ? target : target.substring(0, queryAt);
        StringBuilder key = new StringBuilder(path.length());
        ByteBuffer pendingUtf8 = ByteBuffer.allocate(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%') {
                if (i + 2 >= path.length() || hex(path.charAt(i + 1)) < 0 || hex(path.charAt(i + 2)) < 0) {
                    return refused("malformed percent-escape at position " + i);
                }
                int octet = hex(path.charAt(i + 1)) << 4 | hex(path.charAt(i + 2));
                i += 2;
                String problem = appendOctet(key, pendingUtf8, octet);
                if (problem != null) {
                    return refused(problem);
                }
                continue;
            }
            if (pendingUtf8.position() > 0 && !flushUtf8(key, pendingUtf8)) {
                return refused("percent-escapes that are not valid UTF-8");
            }
            String problem = checkLiteral(c, i);
            if (problem != null) {
                return refused(problem);
            }
            key.append(c);
        }
        if (pendingUtf8.position() > 0 && !flushUtf8(key, pendingUtf8)) {
            return refused("percent-escapes that are not valid UTF-8");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            return refused("the path is " + key.length() + " characters once canonical (non-ASCII as %XX escapes), above the "
                    + MAX_KEY_LENGTH + " a fence can be kept and announced for");
        }
        String segmentProblem = checkSegments(key);
        return segmentProblem == null ? new PathParse.Canonical(new ResourceKey(key.toString())) : refused(segmentProblem);
    }

    private static String appendOctet(StringBuilder key, ByteBuffer pendingUtf8, int octet) {
        if (octet >= 0x80) {
            pendingUtf8.put((byte) octet);
            return null;
        }
        if (pendingUtf8.position() > 0 && !flushUtf8(key, pendingUtf8)) {
            return "percent-escapes that are not valid UTF-8";
        }
        if (octet == '/') {
            // The user never wrote %2F: S3 SDKs send a key's doubled or leading '/' so.
            return "an encoded '/' (%2F) is read as a separator by some stores and not by others; S3 SDKs send the"
                    + " second '/' of a key holding '//', or starting with '/', as %2F, and such keys cannot be fenced";
        }
        if (octet == '\\') {
            return "an encoded '\\' is read as a separator by some stores and not by others";
        }
        if (octet < 0x20 || octet == 0x7F) {
            return "an encoded control character (" + String.format("%%%02X", octet) + ")";
        }
        if (isLiteralInKey((char) octet)) {
            key.append((char) octet);
        } else {
            appendEscape(key, octet);
        }
        return null;
    }

    /** Non-ASCII stays percent-encoded in the key, but only as well-formed, shortest-form UTF-8. */
    private static boolean flushUtf8(StringBuilder key, ByteBuffer pending) {
        pending.flip();
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(pending.duplicate());
        } catch (CharacterCodingException e) {
            return false;
        }
        while (pending.hasRemaining()) {
            appendEscape(key, pending.get() & 0xFF);
        }
        pending.clear();
        return true;
    }

    private static String checkLiteral(char c, int at) {
        if (c == '\\') {
            return "a backslash at position " + at + " is read as a separator by some stores";
        }
        if (c == ';') {
            return "a literal ';' at position " + at + " starts a path parameter that servlet-based stores drop; send it as %3B";
        }
        if (c == '+') {
            return "a literal '+' at position " + at + " is read as a space by some stores; send it as %2B";
        }
        if (c <= 0x20 || c >= 0x7F) {
            return "character " + FencingHeaders.describe(c) + " at position " + at + " must be percent-encoded";
        }
        if (c == '#' || c == '"' || c == '<' || c == '>' || c == '[' || c == ']' || c == '^'
                || c == '`' || c == '{' || c == '|' || c == '}') {
            return "character '" + c + "' at position " + at + " must be percent-encoded";
        }
        return null;
    }

    /** Dot segments and empty segments are resolved differently by different stores. */
    private static String checkSegments(CharSequence path) {
        String[] segments = path.toString().substring(1).split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            boolean trailing = i == segments.length - 1;
            if (segment.isEmpty() && !trailing) {
                return "an empty path segment (a doubled '/')";
            }
            // Servlet containers drop ";parameters" before resolving dots: "..;x" is "..".
            int parameters = segment.indexOf(';');
            String name = parameters < 0 ? segment : segment.substring(0, parameters);
            if (name.equals(".") || name.equals("..")) {
                return "a dot segment ('" + segment + "')";
            }
        }
        return null;
    }

    /** RFC 3986 pchar without '+' and ';', whose literal forms are refused. */
    private static boolean isLiteralInKey(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                || "-._~!$&'()*,=:@".indexOf(c) >= 0;
    }

    private static void appendEscape(StringBuilder key, int octet) {
        key.append('%').append(HEX[octet >> 4]).append(HEX[octet & 0xF]);
    }

    private static int hex(char c) {
        return Character.digit(c, 16) >= 0 && c < 0x80 ? Character.digit(c, 16) : -1;
    }

    private static PathParse refused(String detail) {
        return new PathParse.Refused(detail);
    }
}
