package dev.fencegate.observability;

/**
 * Text a client chose, made safe to put in a log line: control characters (C0, DEL and C1, among
 * them the terminal's escape, which can rewrite what an operator sees of a line), line and
 * paragraph separators and the marks that reorder text right to left written as escapes (a
 * backslash, then x and two hex digits, or u and four), and the whole cut to a length, never inside a surrogate pair, so that one
 * request costs the log a bounded line.
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
        if (end > 0 && end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7F && c <= 0x9F) {
                shown.append(String.format("\\x%02X", (int) c));
            } else if (c == 0x2028 || c == 0x2029 || c >= 0x202A && c <= 0x202E || c >= 0x2066 && c <= 0x2069
                    || c == 0x200E || c == 0x200F || c == 0x061C) {
                shown.append(String.format("\\u%04X", (int) c));
            } else {
                shown.append(c);
            }
        }
        if (end < text.length()) {
            shown.append("...(").append(text.length() - end).append(" more characters)");
        }
        return shown.toString();
    }
}
