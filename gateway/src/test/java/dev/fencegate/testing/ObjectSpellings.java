package dev.fencegate.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Seeded generator of objects and of the ways a client may spell and address them. Keys draw
 * on every class of octet: unreserved, sub-delimiters clients send raw or encoded, characters
 * that must be encoded, '+', ';', '%' and non-ASCII, and now and then a '%' and two hexadecimal
 * digits, which a store that decodes a path twice reads as another character.
 */
public final class ObjectSpellings {

    /** How a request names an object: its target and its Host (without port); what the gateway must answer to a stale token. */
    public record Spelling(String description, String target, String host, int staleStatus) {
    }

    private static final String UNRESERVED = "abcxyzABCXYZ0129-._~";
    private static final String RAW_SAFE = "!$&'()*,=:@";
    private static final String HEX = "0123456789abcdefABCDEF";
    private static final String[] OTHERS = {"=", ":", "@", "+", ";", " ", "%", "?", "#", "é", "ü", "😀", "[", "^", "|", "\"", "'", "*"};

    private final Random random;

    public ObjectSpellings(long seed) {
        this.random = new Random(seed);
    }

    /** A key of 1 to 3 segments, each starting with a letter (no dot segments) and holding a mix of octet classes. */
    public String key() {
        List<String> segments = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int s = 0; s < count; s++) {
            StringBuilder segment = new StringBuilder().append((char) ('a' + random.nextInt(26)));
            int length = 1 + random.nextInt(6);
            for (int i = 0; i < length; i++) {
                if (random.nextInt(24) == 0) {
                    segment.append('%').append(HEX.charAt(random.nextInt(HEX.length()))).append(HEX.charAt(random.nextInt(HEX.length())));
                    continue;
                }
                segment.append(random.nextInt(3) == 0 ? String.valueOf(UNRESERVED.charAt(random.nextInt(UNRESERVED.length())))
                        : OTHERS[random.nextInt(OTHERS.length)]);
            }
            segments.add(segment.toString());
        }
        return String.join("/", segments);
    }

    /** As the AWS SDKs send it: every octet but unreserved ones and '/' encoded, upper-case hex. */
    public static String sdkEncoded(String key) {
        StringBuilder out = new StringBuilder();
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            int octet = b & 0xFF;
            if (octet < 0x80 && (UNRESERVED.indexOf(octet) >= 0 || Character.isLetterOrDigit(octet) || octet == '/')) {
                out.append((char) octet);
            } else {
                out.append(String.format("%%%02X", octet));
            }
        }
        return out.toString();
    }

    /** The resource the README says the object is fenced under: sub-delimiters but '+' and ';' literal, the rest upper-case escapes. */
    public static String fenceKey(String bucket, String key) {
        StringBuilder out = new StringBuilder("/").append(bucket).append('/');
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            int octet = b & 0xFF;
            boolean literal = octet < 0x80 && (Character.isLetterOrDigit(octet) || "-._~/".indexOf(octet) >= 0 || RAW_SAFE.indexOf(octet) >= 0);
            out.append(literal ? String.valueOf((char) octet) : String.format("%%%02X", octet));
        }
        return out.toString();
    }

    /** Another spelling of the same decoded key: each octet raw where a client may send it raw, or escaped in either case of hex. */
    public String alias(String key) {
        StringBuilder out = new StringBuilder();
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            int octet = b & 0xFF;
            boolean mayBeRaw = octet < 0x80 && (Character.isLetterOrDigit(octet) || "-._~".indexOf(octet) >= 0 || RAW_SAFE.indexOf(octet) >= 0);
            if (octet == '/') {
                out.append('/');
            } else if (mayBeRaw && random.nextBoolean()) {
                out.append((char) octet);
            } else {
                String hex = String.format("%%%02X", octet);
                out.append(random.nextBoolean() ? hex : hex.toLowerCase(Locale.ROOT));
            }
        }
        return out.toString();
    }

    /** A spelling whose meaning differs between stores, so the gateway must refuse it (400) whatever the store would do. */
    public String ambiguous(String key) {
        String spelled = alias(key);
        int slash = spelled.indexOf('/');
        return switch (random.nextInt(6)) {
            case 0 -> spelled + ";v=1";
            case 1 -> "x/../" + spelled;
            case 2 -> "./" + spelled;
            case 3 -> slash < 0 ? spelled + "%2F" : spelled.substring(0, slash) + "%2F" + spelled.substring(slash + 1);
            case 4 -> slash < 0 ? "/" + spelled : spelled.substring(0, slash) + "//" + spelled.substring(slash + 1);
            default -> spelled.replace("%2B", "+").replace("%2b", "+").contains("+")
                    ? spelled.replace("%2B", "+").replace("%2b", "+") : spelled + "+";
        };
    }

    public int nextInt(int bound) {
        return random.nextInt(bound);
    }
}
