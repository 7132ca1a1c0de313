package dev.fencegate.observability;

/**
 * Text a client chose, made safe to put in a log line: control characters (C0, DEL and C1, among
 * them the terminal's escape, which can rewrite what an operator sees of a line) written as
 * {@code \xNN}, and the whole cut to a length, so that one request costs the log a bounded line.
 */
public final class ClientText {

    /** Enough of a path or header to recognise it; the rest only fills the disk. */
    public static final int SHOWN = 256;

    private ClientText() {
    }

    public static String shown(String text) {
        return shown(text, SHOWN);
    }

    public static String shown(String text, int most) {
        if (text == null) {
            return "null";
        }
        StringBuilder shown = new StringBuilder(Math.min(text.length(), most) + 16);
        int end = Math.min(text.length(), most);
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7F && c <= 0x9F) {
                shown.append(String.format("\\x%02X", (int) c));
            } else {
                shown.append(c);
            }
        }
        if (text.length() > most) {
            shown.append("...(").append(text.length() - most).append(" more characters)");
        }
        return shown.toString();
    }
}
