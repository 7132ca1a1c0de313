package dev.fencegate.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every setting's value after layering, lowest precedence first: built-in default, config file,
 * environment, flag. Typed reads fail naming the setting, what was expected and, for a value from
 * the environment or a file, the variable or file to fix.
 */
public record EffectiveSettings(ConfigFile file, Map<Setting, SettingValue> values) {

    public EffectiveSettings {
        values = Collections.unmodifiableMap(new EnumMap<>(values));
    }

    /**
     * @param flags what the command line set
     * @param env   the process environment; an empty variable counts as unset, as {@code ${VAR:-default}} does,
     *              except for a setting that {@linkplain Setting#refusesEmptyVariable refuses an empty variable}
     * @param file  the config file; a key written with no value ({@code db-user:}) is refused when read
     */
    public static EffectiveSettings resolve(Map<Setting, String> flags, Map<String, String> env, ConfigFile file) {
        Map<Setting, SettingValue> values = new EnumMap<>(Setting.class);
        for (Setting setting : Setting.values()) {
            String fromEnv = env.get(setting.variable());
            SettingValue value;
            if (flags.containsKey(setting)) {
                value = new SettingValue(setting, flags.get(setting), SettingValue.Source.FLAG, setting.flag());
            } else if (fromEnv != null && (!fromEnv.isEmpty() || setting.refusesEmptyVariable())) {
                value = new SettingValue(setting, fromEnv, SettingValue.Source.ENV, setting.variable());
            } else if (file.values().containsKey(setting)) {
                value = new SettingValue(setting, file.values().get(setting), SettingValue.Source.FILE, file.origin(setting));
            } else {
                value = new SettingValue(setting, setting.defaultValue(), SettingValue.Source.DEFAULT, "built-in default");
            }
            values.put(setting, value);
        }
        return new EffectiveSettings(file, values);
    }

    public SettingValue get(Setting setting) {
        return values.get(setting);
    }

    /** One {@code name = value (source)} line per setting, secrets masked; the config file first. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        lines.add("config = " + (file.path() == null ? "(none)" : file.path().toString()) + " (" + file.namedBy().label() + ")");
        values.values().forEach(value -> lines.add(value.line()));
        return lines;
    }

    public String text(Setting setting) {
        SettingValue value = values.get(setting);
        if (setting.refusesEmpty() && value.source() != SettingValue.Source.DEFAULT && value.value().isEmpty()) {
            throw new IllegalArgumentException(setting.flag() + ": given empty (expected a value; leave the setting out"
                    + " to mean none, since an empty value is most often a variable that was not set)" + value.blame());
        }
        return given(value);
    }

    /**
     * A key in the file left without a value is refused, not read as the default: a template
     * that rendered an unset variable as nothing would otherwise switch a deployment to the
     * default database, schema or store kind without a word. So is an empty variable of a setting
     * that {@linkplain Setting#refusesEmptyVariable names the fence table or naming}.
     */
    private static String given(SettingValue value) {
        if (value.source() == SettingValue.Source.FILE && value.value().isEmpty()) {
            throw new IllegalArgumentException(value.setting().flag() + ": given empty (expected a value; remove the key"
                    + " to use the default)" + value.blame());
        }
        if (value.source() == SettingValue.Source.ENV && value.value().isEmpty() && value.setting().refusesEmptyVariable()) {
            throw new IllegalArgumentException(value.setting().flag() + ": given empty (expected a value; unset "
                    + value.setting().variable() + " to use the default: an empty one is most often a variable that was not"
                    + " set, and read as the default it would switch to another fence table or naming)" + value.blame());
        }
        return value.value();
    }

    public int integer(Setting setting) {
        return convert(setting, text -> {
            if (!text.matches("-?[0-9]{1,10}")) {
                throw new IllegalArgumentException("'" + text + "' (expected an integer)");
            }
            return Integer.parseInt(text);
        });
    }

    public long longInteger(Setting setting) {
        return convert(setting, text -> {
            if (!text.matches("-?[0-9]{1,18}")) {
                throw new IllegalArgumentException("'" + text + "' (expected a whole number of bytes)");
            }
            return Long.parseLong(text);
        });
    }

    public boolean bool(Setting setting) {
        return convert(setting, text -> switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("'" + text + "' (expected true or false)");
        });
    }

    public Duration duration(Setting setting) {
        return convert(setting, Durations::parse);
    }

    public HostPort hostPort(Setting setting) {
        return convert(setting, HostPort::parse);
    }

    public URI uri(Setting setting) {
        return convert(setting, text -> {
            try {
                return new URI(text);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("'" + SettingValue.withoutCredentials(text) + "' (expected a URL: " + e.getReason() + ")", e);
            }
        });
    }

    public AccessLogFormat accessLog(Setting setting) {
        return convert(setting, AccessLogFormat::parse);
    }

    private <T> T convert(Setting setting, Function<String, T> parse) {
        SettingValue value = values.get(setting);
        String given = given(value);
        try {
            return parse.apply(given);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting.flag() + ": " + e.getMessage() + value.blame(), e);
        }
    }

    /**
     * Adds the variable or file line to blame to a validation message that starts with a flag,
     * such as {@code --db-pool-size: 0 (expected 1 to 1000)}.
     */
    public IllegalArgumentException explain(IllegalArgumentException failure) {
        String message = failure.getMessage() == null ? "" : failure.getMessage();
        for (SettingValue value : values.values()) {
            if (message.startsWith(value.setting().flag() + ":") && !value.blame().isEmpty() && !message.contains("; set by ")) {
                return new IllegalArgumentException(message + value.blame(), failure);
            }
        }
        return failure;
    }
}
