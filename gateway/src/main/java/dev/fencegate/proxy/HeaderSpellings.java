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
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            char read = c == '_' || c == '.' ? '-' : c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
            if (read != lowerCase.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
