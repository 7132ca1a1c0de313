package dev.fencegate.admin;

import dev.fencegate.fence.ResourceKey;
import dev.fencegate.http.ResourcePaths;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The resource named in an admin path: {@code /fences/%2Fbucket%2Freport.csv} names the fence
 * of {@code /bucket/report.csv}. The segment is percent-decoded exactly once ('+' stays '+'), and
 * the result must be a canonical key as the data path computes it, or the raise would land on a
 * fence no write ever checks.
 */
final class ResourceSegment {

    private ResourceSegment() {
    }

    /** Either the key, or a message saying what was expected. */
    sealed interface Parse {
        record Valid(ResourceKey key) implements Parse {
        }

        record Invalid(String message) implements Parse {
        }
    }

    static Parse parse(String encoded) {
        String decoded = decode(encoded);
        if (decoded == null) {
            return new Parse.Invalid("resource: '" + encoded + "' (expected: the canonical path, percent-encoded as UTF-8)");
        }
        if (!decoded.startsWith("/")) {
            return new Parse.Invalid("resource: '" + decoded + "' (expected: a path starting with '/', e.g. /fences/%2Fbucket%2Fkey)");
        }
        ResourcePaths.PathParse canonical = ResourcePaths.canonicalise(decoded);
        if (canonical instanceof ResourcePaths.PathParse.Refused refused) {
            return new Parse.Invalid("resource: '" + decoded + "' (expected: a path the data port accepts; " + refused.detail() + ")");
        }
        ResourceKey key = ((ResourcePaths.PathParse.Canonical) canonical).key();
        if (!key.value().equals(decoded)) {
            return new Parse.Invalid("resource: '" + decoded + "' (expected: its canonical form '" + key.value() + "')");
        }
        return new Parse.Valid(key);
    }

    /** Strict percent-decoding to UTF-8; {@code null} on a malformed escape or bad UTF-8. */
    private static String decode(String encoded) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                if (i + 2 >= encoded.length()) {
                    return null;
                }
                int high = Character.digit(encoded.charAt(i + 1), 16);
                int low = Character.digit(encoded.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return null;
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null; // a raw non-ASCII character: the request line should not carry one
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
