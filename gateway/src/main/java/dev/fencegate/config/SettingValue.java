package dev.fencegate.config;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One setting's effective value and where it came from.
 *
 * @param value  the text as written, {@code null} when a required setting was given nowhere
 * @param origin what set it, for messages: {@code FENCEGATE_DB_URL}, {@code db-url in /etc/fencegate.yml}...
 */
public record SettingValue(Setting setting, String value, Source source, String origin) {

    /** Where a value came from, lowest precedence first. */
    public enum Source {
        DEFAULT, FILE, ENV, FLAG;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final String MASK = "********";
    private static final Pattern USERINFO = Pattern.compile("//[^/?#]*@");
    /**
     * pgJDBC takes {@code password} and {@code sslpassword} from a URL's query as well as from its
     * own settings, up to the next {@code &} ({@code #} included).
     */
    private static final Pattern PASSWORD_PARAMETER = Pattern.compile("([?&][^=&]*password=)[^&]*", Pattern.CASE_INSENSITIVE);

    /** {@code name = value (source)}, with secrets masked and never their length shown. */
    public String line() {
        return setting.key() + " = " + shown() + " (" + source.label() + ")";
    }

    private String shown() {
        if (value == null) {
            return "(unset)";
        }
        if (value.isEmpty()) {
            return "\"\"";
        }
        return setting.secret() ? MASK : withoutCredentials(value);
    }

    /**
     * A URL's user and password masked, and the value of any query parameter naming a password
     * ({@code --db-url}'s {@code ?password=}): refused in --upstream, they are still shown where they were set.
     */
    static String withoutCredentials(String text) {
        String masked = USERINFO.matcher(text).replaceFirst("//" + MASK + "@");
        return PASSWORD_PARAMETER.matcher(masked).replaceAll("$1" + MASK);
    }

    /** Appended to a message about this value: which variable or file line to fix. */
    String blame() {
        return source == Source.ENV || source == Source.FILE ? "; set by " + origin : "";
    }
}
