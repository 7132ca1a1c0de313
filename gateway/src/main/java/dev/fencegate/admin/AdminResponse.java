package dev.fencegate.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** What an admin endpoint answers, free of any transport type. */
public record AdminResponse(int status, String contentType, byte[] body, Map<String, String> headers) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public AdminResponse {
        headers = Map.copyOf(headers);
    }

    public AdminResponse(int status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    public static AdminResponse text(int status, String text) {
        return new AdminResponse(status, "text/plain; charset=utf-8", (text + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** A JSON object; {@code null} values are written as JSON nulls. */
    public static AdminResponse json(int status, Map<String, ?> fields) {
        try {
            return new AdminResponse(status, "application/json", JSON.writeValueAsBytes(fields));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an admin answer could not be written as JSON", e);
        }
    }

    public AdminResponse withHeader(String name, String value) {
        Map<String, String> more = new java.util.HashMap<>(headers);
        more.put(name, value);
        return new AdminResponse(status, contentType, body, more);
    }
}
