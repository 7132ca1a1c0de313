package dev.fencegate.http;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** What an S3 request is, where the fence needs to know more than its path. */
public final class S3Requests {

    private S3Requests() {
    }

    /**
     * DeleteObjects: a POST whose query has a {@code delete} parameter. Names are compared
     * percent-decoded, as the store's server decodes them ({@code ?%64elete} is {@code ?delete}).
     */
    public static boolean isDeleteObjects(String method, String target) {
        if (!method.equals("POST")) {
            return false;
        }
        int query = target.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (String parameter : target.substring(query + 1).split("&", -1)) {
            String name = parameter.split("=", 2)[0];
            if (decodedEquals(name, "delete")) {
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

    private static boolean decodedEquals(String encoded, String expected) {
        if (encoded.indexOf('%') < 0 && encoded.indexOf('+') < 0) {
            return encoded.equals(expected);
        }
        try {
            return java.net.URLDecoder.decode(encoded, StandardCharsets.UTF_8).equals(expected);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
