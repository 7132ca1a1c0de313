package dev.fencegate.proxy;

/**
 * Header names as the servers behind a proxy may read them: without regard to case, and with an
 * underscore or a dot taken for a hyphen, as servers do that pass headers on as CGI-style variables
 * ({@code X_Original_URL} and {@code X-Original-URL} are both {@code HTTP_X_ORIGINAL_URL} there, and
 * PHP turns a dot in a variable's name into an underscore, so {@code X.Original.URL} is too).
 */
final class HeaderSpellings {

    private HeaderSpellings() {
    }

    /** Whether {@code name} spells {@code lowerCase} (lower case, hyphens) so. */
    static boolean sameName(CharSequence name, String lowerCase) {
        if (name.length() != lowerCase.length()) {
            return false;
        }
        return holdsAt(name, 0, lowerCase);
    }

    /** Whether {@code name}, read as {@link #sameName} reads it, holds {@code lowerCase} from {@code at}. */
    static boolean holdsAt(CharSequence name, int at, String lowerCase) {
        if (at < 0 || at + lowerCase.length() > name.length()) {
            return false;
        }
        for (int i = 0; i < lowerCase.length(); i++) {
            if (read(name.charAt(at + i)) != lowerCase.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code name}, read as {@link #sameName} reads it, holds {@code lowerCase} anywhere. */
    static boolean holds(CharSequence name, String lowerCase) {
        for (int at = 0; at + lowerCase.length() <= name.length(); at++) {
            if (holdsAt(name, at, lowerCase)) {
                return true;
            }
        }
        return false;
    }

    private static char read(char c) {
        return c == '_' || c == '.' ? '-' : c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }
}
