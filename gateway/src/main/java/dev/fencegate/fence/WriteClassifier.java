package dev.fencegate.fence;

/** Sorts request methods into writes (fenced), reads (passed through) and refused ones. */
public final class WriteClassifier {

    public enum Kind { WRITE, READ, REFUSED }

    private WriteClassifier() {
    }

    /** Methods are case-sensitive (RFC 9110 9.1): "put" is unknown, so it is refused. */
    public static Kind classify(String method) {
        return switch (method) {
            case "PUT", "POST", "PATCH", "DELETE" -> Kind.WRITE;
            case "GET", "HEAD", "OPTIONS" -> Kind.READ;
            default -> Kind.REFUSED;
        };
    }
}
