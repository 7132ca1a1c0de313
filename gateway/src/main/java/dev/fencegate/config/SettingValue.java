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
        return setting.secret() ? MASK : withoutUserinfo(value);
    }

    /** A URL's user and password masked: refused in --upstream, they are still shown where they were set. */
    static String withoutUserinfo(String text) {
        return USERINFO.matcher(text).replaceFirst("//" + MASK + "@");
    }

    /** Appended to a message about this value: which variable or file line to fix. */
    String blame() {
        return source == Source.ENV || source == Source.FILE ? "; set by " + origin : "";
    }
}
