package dev.fencegate.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.ResourceNaming;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * How an instance names the resources it fences: every setting that decides which key a write is
 * checked under. Instances sharing fences must agree on it, or one object would be checked
 * against two fences. The store kind and, under {@code s3-virtual-host}, its domains decide how a
 * request names an object; the path the upstream URL adds decides which object a path is; the
 * job scopes decide which resource an object falls under.
 *
 * @param storeKind    the store kind's value ({@code s3-path}...)
 * @param domains      the virtual-host domains, lower case and sorted; empty unless {@code s3-virtual-host}
 * @param upstreamPath the path the upstream URL adds in front of every request target
 * @param scopes       the job scope templates, in their order (the first match wins)
 */
public record FenceNaming(String storeKind, List<String> domains, String upstreamPath, List<String> scopes)
        implements ResourceNaming {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VIRTUAL_HOST = "s3-virtual-host";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{[^/]*\\}");

    public FenceNaming {
        domains = storeKind.equals(VIRTUAL_HOST)
                ? domains.stream().map(domain -> domain.toLowerCase(Locale.ROOT)).sorted().distinct().toList()
                : List.of();
        scopes = List.copyOf(scopes);
    }

    /**
     * The naming of an instance with these settings; {@code scopes} as {@code --scopes} is written.
     * A placeholder's name says nothing about the key, so every placeholder is written {@code {_}}.
     */
    public static FenceNaming of(String storeKind, List<String> domains, String upstreamPath, String scopes) {
        return new FenceNaming(storeKind, domains, upstreamPath, ResourceScopes.parse(scopes, ResourceScopes.Unscoped.PER_OBJECT)
                .templates().stream().map(template -> PLACEHOLDER.matcher(template).replaceAll("{_}")).toList());
    }

    /** The text recorded in the fence database and shown to operators: one JSON object, keys in a fixed order. */
    @Override
    public String text() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("store-kind", storeKind);
        if (!domains.isEmpty()) {
            fields.put("virtual-host-domains", domains);
        }
        fields.put("upstream-path", upstreamPath);
        fields.put("scopes", scopes);
        try {
            return JSON.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The naming recorded as {@code text}, or empty when it cannot be read (recorded by a later version). */
    public static Optional<FenceNaming> parse(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            if (node == null || !node.path("store-kind").isTextual() || !node.path("upstream-path").isTextual()
                    || !node.path("scopes").isArray()) {
                return Optional.empty();
            }
            return Optional.of(new FenceNaming(node.get("store-kind").asText(), strings(node.path("virtual-host-domains")),
                    node.get("upstream-path").asText(), strings(node.get("scopes"))));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(item -> values.add(item.asText()));
        return values;
    }

    /**
     * Why the fences recorded under a naming cannot be carried to this one, or empty when they
     * can: each recorded key then maps to one key here ({@link #carrier}), and raising
     * that key to the recorded fence keeps every object at least as fenced as it was. A change of
     * store kind or domains keeps the keys. Templates added after the recorded ones can only take
     * objects that were fenced on their own, whose fences move up to their new scope. A template
     * removed, changed or moved would leave the objects under its scope with no fence of their
     * own, unless a shallower template here covers all of them (a nested template, which earlier
     * versions allowed, dropped): its keys then move up to that template's. Another store path
     * would make every key name another object.
     */
    @Override
    public Optional<String> whyNotCarriedFrom(String recorded) {
        return parse(recorded).map(this::whyNotCarriedFrom)
                .orElse(Optional.of("the recorded naming cannot be read by this version"));
    }

    private Optional<String> whyNotCarriedFrom(FenceNaming recorded) {
        if (!recorded.upstreamPath.equals(upstreamPath)) {
            return Optional.of("the store path the upstream URL adds changed from '" + recorded.upstreamPath + "' to '"
                    + upstreamPath + "': every fence would name another object");
        }
        int kept = 0;
        for (String template : recorded.scopes) {
            if (kept < scopes.size() && scopes.get(kept).equals(template)) {
                kept++;
            } else if (scopes.stream().noneMatch(wider -> covers(wider, template))) {
                return Optional.of("the scopes " + recorded.scopes + " are not kept, in their order, at the start of "
                        + scopes + ": the objects under a scope removed, changed or moved would no longer be covered by"
                        + " their job's fence; only templates added after the recorded ones can be carried, and a"
                        + " template dropped only where a shallower one here covers every path it matched");
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code wider} matches every path {@code deeper} matches, at a shallower key: a
     * template dropped for it (one nested below it, as earlier versions allowed) has each of its
     * keys carried up to the key {@code wider} names for it, which covers the same objects.
     */
    private static boolean covers(String wider, String deeper) {
        List<String> outer = segments(wider);
        List<String> inner = segments(deeper);
        if (outer.size() >= inner.size()) {
            return false;
        }
        for (int i = 0; i < outer.size(); i++) {
            if (!outer.get(i).startsWith("{") && !outer.get(i).equals(inner.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static List<String> segments(String template) {
        return List.of(template.substring(1, template.length() - 3).split("/", -1));
    }

    @Override
    public Function<ResourceKey, Optional<ResourceKey>> carrier() {
        ResourceScopes resources = ResourceScopes.parse(String.join(",", scopes), ResourceScopes.Unscoped.PER_OBJECT);
        return recorded -> recorded.value().startsWith("/")
                ? resources.resourceOf(recorded).filter(key -> !key.equals(recorded))
                : Optional.empty();
    }
}
