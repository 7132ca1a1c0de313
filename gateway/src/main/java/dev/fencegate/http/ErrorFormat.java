package dev.fencegate.http;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * How a refusal is written for the client that gets it. S3 clients parse S3-style XML errors
 * and read their {@code <Code>}; everybody else gets an RFC 9457 problem. An S3 client is told
 * apart by what only S3 clients send: a SigV4 or V2 signature (header or presigned query), the
 * {@code x-amz-content-sha256} header, or the header with which every AWS SDK names each call,
 * {@code amz-sdk-invocation-id}, which an anonymous SDK client's DeleteObject carries alone.
 */
public enum ErrorFormat {
    PROBLEM_JSON(Problem.MEDIA_TYPE),
    S3_XML("application/xml");

    private final String contentType;

    ErrorFormat(String contentType) {
        this.contentType = contentType;
    }

    /** The header every AWS SDK sends with each call it makes, signed or not. */
    public static final String SDK_INVOCATION_ID = "amz-sdk-invocation-id";

    public static ErrorFormat of(String authorization, String contentSha256, String sdkInvocationId, String target) {
        if (authorization != null && (authorization.startsWith("AWS4-HMAC-SHA256 ") || authorization.startsWith("AWS "))) {
            return S3_XML;
        }
        if (contentSha256 != null || sdkInvocationId != null || hasPresignedQuery(target)) {
            return S3_XML;
        }
        return PROBLEM_JSON;
    }

    public String contentType() {
        return contentType;
    }

    /** The body for {@code problem}; {@code path} is the request path, used when the problem names no resource. */
    public byte[] body(Problem problem, String path, String requestId) {
        if (this == PROBLEM_JSON) {
            return problem.toJson();
        }
        Object resource = problem.extensions().getOrDefault("resource", path);
        String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>"
                + element("Code", problem.outcome().s3Code())
                + element("Message", problem.detail())
                + element("Resource", String.valueOf(resource))
                + element("RequestId", requestId)
                + "</Error>";
        return xml.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean hasPresignedQuery(String target) {
        int query = target.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (String parameter : target.substring(query + 1).split("&")) {
            String name = parameter.split("=", 2)[0].toLowerCase(Locale.ROOT);
            if (name.equals("x-amz-algorithm") || name.equals("awsaccesskeyid")) {
                return true;
            }
        }
        return false;
    }

    private static String element(String name, String text) {
        return "<" + name + ">" + escape(text) + "</" + name + ">";
    }

    /** XML 1.0 text: markup characters escaped, characters XML cannot carry replaced. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0xFFFE || c == 0xFFFF ? '?' : c);
            }
        }
        return out.toString();
    }
}
