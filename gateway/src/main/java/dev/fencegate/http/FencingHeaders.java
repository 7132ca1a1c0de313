package dev.fencegate.http;

import dev.fencegate.fence.FenceDecision;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.Holder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** Reads the token and holder of a write from its header values; never from a trailer. */
public final class FencingHeaders {

    private static final int MAX_TOKEN_DIGITS = 19;
    static final int MAX_HOLDER_LENGTH = 200;

    /** Either a token, or the refusal that a bad or missing header earns. */
    public sealed interface TokenParse {
        record Valid(FencingToken token) implements TokenParse {
        }

        record Refused(FenceDecision refusal) implements TokenParse {
        }
    }

    /** Either an optional holder, or the refusal that a bad header earns. */
    public sealed interface HolderParse {
        record Valid(Optional<Holder> holder) implements HolderParse {
        }

        record Refused(FenceDecision refusal) implements HolderParse {
        }
    }

    private FencingHeaders() {
    }

    /**
     * A token is a canonical decimal from 1 to 2^63-1: ASCII digits only, no sign, no leading
     * zero, no inner spaces, in exactly one header. Anything else is refused rather than guessed.
     */
    public static TokenParse token(List<String> values) {
        if (values.isEmpty()) {
            return new TokenParse.Refused(new FenceDecision.MissingToken());
        }
        if (values.size() > 1) {
            return malformed("expected exactly one " + HeaderNames.FENCING_TOKEN + " header, got " + values.size());
        }
        String text = values.get(0);
        if (text.isEmpty() || text.length() > MAX_TOKEN_DIGITS) {
            return malformed("expected 1 to 19 digits, got " + text.length() + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return malformed("expected ASCII digits only, found " + describeAt(text, i) + " at position " + i);
            }
        }
        if (text.charAt(0) == '0') {
            return malformed("expected a decimal from 1 with no leading zero");
        }
        if (text.length() == MAX_TOKEN_DIGITS && text.compareTo(Long.toString(Long.MAX_VALUE)) > 0) {
            return malformed("expected at most " + Long.MAX_VALUE);
        }
        return new TokenParse.Valid(new FencingToken(Long.parseLong(text)));
    }

    /** The holder is optional; when present it is one header of 1 to 200 visible ASCII characters. */
    public static HolderParse holder(List<String> values) {
        if (values.isEmpty()) {
            return new HolderParse.Valid(Optional.empty());
        }
        if (values.size() > 1) {
            return malformedHolder("expected at most one " + HeaderNames.FENCING_HOLDER + " header, got " + values.size());
        }
        String text = values.get(0);
        if (text.isEmpty() || text.length() > MAX_HOLDER_LENGTH) {
            return malformedHolder("expected 1 to " + MAX_HOLDER_LENGTH + " characters, got " + text.length());
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                return malformedHolder("expected visible ASCII only, found " + describeAt(text, i) + " at position " + i);
            }
        }
        return new HolderParse.Valid(Optional.of(new Holder(text)));
    }

    private static TokenParse malformed(String detail) {
        return new TokenParse.Refused(new FenceDecision.MalformedToken(detail));
    }

    private static HolderParse malformedHolder(String detail) {
        return new HolderParse.Refused(new FenceDecision.MalformedHolder(detail));
    }

    /**
     * The character that starts at {@code i}. Header values arrive one char per byte, so a UTF-8
     * character (a full-width digit, say) is read back from its bytes and named by its code point,
     * not by its first byte; text that is not UTF-8 there is named char by char.
     */
    static String describeAt(String text, int i) {
        char c = text.charAt(i);
        int length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 1;
        if (length > 1 && i + length <= text.length()) {
            byte[] bytes = new byte[length];
            for (int k = 0; k < length; k++) {
                char b = text.charAt(i + k);
                if (b > 0xFF) {
                    return String.format("U+%04X", text.codePointAt(i));
                }
                bytes[k] = (byte) b;
            }
            try {
                return String.format("U+%04X", StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString().codePointAt(0));
            } catch (CharacterCodingException notUtf8) {
                // Named as the single char below.
            }
        }
        return c >= 0x21 && c < 0x7F ? "'" + c + "'" : String.format("U+%04X", text.codePointAt(i));
    }

    /** A character as an error names it: itself when visible ASCII, else its code point, {@code U+0001}. */
    public static String describe(char c) {
        return c >= 0x21 && c < 0x7F ? "'" + c + "'" : String.format("U+%04X", (int) c);
    }
}
