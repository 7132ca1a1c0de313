package dev.fencegate.admin;

import java.nio.charset.StandardCharsets;

/** What an admin endpoint answers, free of any transport type. */
public record AdminResponse(int status, String contentType, byte[] body) {

    public static AdminResponse text(int status, String text) {
        return new AdminResponse(status, "text/plain; charset=utf-8", (text + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
