package dev.fencegate.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A YAML file of settings, keys named like the flags without their dashes
 * ({@code listen: 127.0.0.1:8080}, {@code fence-timeout: 2s}). An unknown key fails at start,
 * naming the key and the file: a misspelt setting must not be silently ignored.
 *
 * @param path    the file, or {@code null} when none is used
 * @param values  each value exactly as written
 * @param namedBy whether {@code --config} (flag) or FENCEGATE_CONFIG (env) named the file
 */
public record ConfigFile(Path path, Map<Setting, String> values, SettingValue.Source namedBy) {

    private static final YAMLFactory YAML = YAMLFactory.builder().build();

    public ConfigFile {
        values = Collections.unmodifiableMap(values.isEmpty() ? new EnumMap<>(Setting.class) : new EnumMap<>(values));
    }

    public static ConfigFile none() {
        return new ConfigFile(null, Map.of(), SettingValue.Source.DEFAULT);
    }

    public static ConfigFile read(Path path, SettingValue.Source namedBy) {
        String text;
        try {
            text = Files.readString(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("--config: " + path + " (expected a readable YAML file: " + e + ")", e);
        }
        return parse(path, text, namedBy);
    }

    /** The settings that take several values, comma-separated. */
    private static final Set<Setting> COMMA_LISTS = EnumSet.of(Setting.SCOPES, Setting.TRUSTED_PROXIES, Setting.VIRTUAL_HOST_DOMAINS);

    /**
     * Reads scalars as the text written, through the streaming parser: YAML 1.1 would otherwise
     * turn {@code access-log: off} into {@code false} and {@code 0750} into 488.
     */
    static ConfigFile parse(Path path, String text, SettingValue.Source namedBy) {
        Map<Setting, String> values = new EnumMap<>(Setting.class);
        try (JsonParser parser = YAML.createParser(text)) {
            parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            JsonToken first = parser.nextToken();
            if (first == null) {
                return new ConfigFile(path, values, namedBy);
            }
            if (first != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("--config: " + path + " (expected a mapping of setting: value)");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String key = parser.currentName();
                int line = parser.currentLocation().getLineNr();
                Setting setting = Setting.byKey(key).orElseThrow(() -> new IllegalArgumentException(
                        "--config: unknown key '" + key + "' at line " + line + " of " + path
                                + " (expected one of: " + Setting.keys() + ")"));
                JsonToken value = parser.nextToken();
                if (value.isStructStart()) {
                    throw new IllegalArgumentException("--config: key '" + key + "' at line " + line + " of " + path
                            + " (expected a single value, not a list or mapping" + (COMMA_LISTS.contains(setting)
                            ? "; several go in one, comma-separated, as on the command line: " + key + ": \"a,b\")" : ")"));
                }
                values.put(setting, value == JsonToken.VALUE_NULL ? "" : parser.getText());
            }
            requireEnd(parser, path);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            throw new IllegalArgumentException("--config: " + path + " (expected valid YAML: " + e.getOriginalMessage()
                    + where + ")", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("--config: " + path + " (expected a readable YAML file: " + e + ")", e);
        }
        return new ConfigFile(path, values, namedBy);
    }

    /**
     * Nothing but empty documents may follow the mapping: the parser reads a second document
     * ({@code ---}) as a value of its own, and one left unread would have its keys, unknown ones
     * included, ignored without a word. An empty one (a {@code ---} at the end, as tools that
     * join files write, or a lone {@code ~}) holds no setting to miss.
     */
    private static void requireEnd(JsonParser parser, Path path) throws IOException {
        JsonToken next = parser.nextToken();
        // This factory reads an empty document as an empty string, a lone ~ as null.
        while (next == JsonToken.VALUE_NULL || next == JsonToken.VALUE_STRING && parser.getText().isEmpty()) {
            next = parser.nextToken();
        }
        if (next != null) {
            throw new IllegalArgumentException("--config: " + path + " (expected one YAML document; another begins at line "
                    + parser.currentTokenLocation().getLineNr() + ", and its settings would not be read)");
        }
    }

    /** How a value from this file is named in messages. */
    String origin(Setting setting) {
        return setting.key() + " in " + path;
    }
}
