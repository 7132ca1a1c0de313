package dev.fencegate.http;

import dev.fencegate.fence.ResourceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Maps a write's path to the resource it is fenced under. A lease usually guards a job whose
 * output is many objects: with a scope such as {@code /{bucket}/jobs/{job}/**} every object
 * under one job shares the job's fence, so a paused worker cannot add an object the new holder
 * has not written yet. Templates are literal segments, {@code {name}} for one segment, and a
 * final {@code **} for one or more segments below. A literal segment is written as keys spell it
 * ({@link ResourcePaths}): {@code date=2024}, not {@code date%3D2024}.
 */
public final class ResourceScopes {

    /** What happens to a write that no scope matches. */
    public enum Unscoped { REFUSE, PER_OBJECT }

    private record Template(String text, List<String> segments) {
    }

    private final List<Template> templates;
    private final Unscoped unscoped;

    private ResourceScopes(List<Template> templates, Unscoped unscoped) {
        this.templates = templates;
        this.unscoped = unscoped;
    }

    /** No scopes: every object is its own resource. */
    public static ResourceScopes perObject() {
        return new ResourceScopes(List.of(), Unscoped.PER_OBJECT);
    }

    /**
     * @param spec comma-separated templates, or empty for none
     * @throws IllegalArgumentException naming the template and what was expected
     */
    public static ResourceScopes parse(String spec, Unscoped unscoped) {
        List<Template> templates = new ArrayList<>();
        for (String text : spec.split(",")) {
            String template = text.strip();
            if (!template.isEmpty()) {
                templates.add(template(template));
            }
        }
        for (int i = 0; i < templates.size(); i++) {
            for (int j = i + 1; j < templates.size(); j++) {
                refuseNesting(templates.get(i), templates.get(j));
            }
        }
        return templates.isEmpty() ? perObject() : new ResourceScopes(List.copyOf(templates), unscoped);
    }

    /**
     * Two templates of different depths that one path can match would split a job's objects
     * between two fences ({@code /{bucket}/jobs/{job}/out/**} beside {@code /{bucket}/jobs/{job}/**}:
     * {@code /b/jobs/50/out/x} under {@code /b/jobs/50/out}, {@code /b/jobs/50/a} under
     * {@code /b/jobs/50}), or leave the deeper one dead behind the shallower. Templates of one
     * depth that one path matches give it the same key, and may stand together.
     */
    private static void refuseNesting(Template first, Template second) {
        List<String> a = first.segments();
        List<String> b = second.segments();
        if (a.size() == b.size()) {
            return;
        }
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            boolean either = a.get(i).startsWith("{") || b.get(i).startsWith("{");
            if (!either && !a.get(i).equals(b.get(i))) {
                return;
            }
        }
        throw new IllegalArgumentException("--scopes: '" + first.text() + "' and '" + second.text() + "' (expected scopes that"
                + " do not nest: both match a path such as " + example(a.size() > b.size() ? a : b, a.size() > b.size() ? b : a)
                + ", and the key of one lies below the other's, which splits one job's objects between two fences or leaves"
                + " the later template unused; where such scopes are recorded already, a change with --change-fence-naming"
                + " can drop the deeper one)");
    }

    /** A path {@code deeper} and {@code shallower} both match. */
    private static String example(List<String> deeper, List<String> shallower) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < deeper.size(); i++) {
            String segment = deeper.get(i).startsWith("{") && i < shallower.size() && !shallower.get(i).startsWith("{")
                    ? shallower.get(i) : deeper.get(i);
            parts.add(segment.startsWith("{") ? "x" : segment);
        }
        return "/" + String.join("/", parts) + "/object";
    }

    private static Template template(String text) {
        if (!text.startsWith("/") || !text.endsWith("/**") || text.length() < 4) {
            throw new IllegalArgumentException("--scopes: '" + text + "' (expected a path template ending in /**, e.g. /{bucket}/jobs/{job}/**)");
        }
        List<String> segments = List.of(text.substring(1, text.length() - 3).split("/", -1));
        for (String segment : segments) {
            boolean placeholder = segment.startsWith("{") && segment.endsWith("}") && segment.length() > 2;
            if (segment.isEmpty() || segment.contains("*") || !placeholder && (segment.contains("{") || segment.contains("}"))) {
                throw new IllegalArgumentException("--scopes: '" + text + "' has segment '" + segment
                        + "' (expected a literal segment or {name})");
            }
            if (!placeholder) {
                checkCanonical(text, segment);
            }
        }
        return new Template(text, segments);
    }

    /**
     * A literal segment is compared with canonical keys, so one spelt otherwise would match no
     * write: the scope would silently not exist, and under per-object each object would keep a
     * fence of its own.
     */
    private static void checkCanonical(String text, String segment) {
        String problem = "' has segment '" + segment + "', which no write's key holds";
        if (segment.contains("?")) {
            throw new IllegalArgumentException("--scopes: '" + text + problem + " (expected '?' written %3F, since it starts a query)");
        }
        ResourcePaths.PathParse parse = ResourcePaths.canonicalise("/" + segment);
        if (parse instanceof ResourcePaths.PathParse.Refused refused) {
            throw new IllegalArgumentException("--scopes: '" + text + problem + " (expected a segment a request path may hold,"
                    + " but '/" + segment + "' is refused: " + refused.detail() + ")");
        }
        String canonical = ((ResourcePaths.PathParse.Canonical) parse).key().value().substring(1);
        if (!canonical.equals(segment)) {
            throw new IllegalArgumentException("--scopes: '" + text + problem + " (expected it as keys spell it: '" + canonical + "')");
        }
    }

    /** The resource a write to canonical path {@code path} is fenced under, or empty when it must be refused. */
    public Optional<ResourceKey> resourceOf(ResourceKey path) {
        String[] parts = path.value().substring(1).split("/", -1);
        for (Template template : templates) {
            List<String> segments = template.segments();
            if (parts.length > segments.size() && matches(segments, parts)) {
                return Optional.of(new ResourceKey("/" + String.join("/", List.of(parts).subList(0, segments.size()))));
            }
        }
        return unscoped == Unscoped.PER_OBJECT ? Optional.of(path) : Optional.empty();
    }

    /**
     * Whether {@code key} is the resource writes below it are fenced under, {@code /data/jobs/42}
     * for {@code /{bucket}/jobs/{job}/**}: the first template that matches decides, as for a write.
     */
    public boolean isScopeKey(ResourceKey key) {
        if (templates.isEmpty()) {
            return false;
        }
        // As resourceOf of a path one segment below the key: the first template matching its segments decides.
        String[] parts = key.value().substring(1).split("/", -1);
        for (Template template : templates) {
            List<String> segments = template.segments();
            if (parts.length >= segments.size() && matches(segments, parts)) {
                return parts.length == segments.size();
            }
        }
        return false;
    }

    private static boolean matches(List<String> segments, String[] parts) {
        for (int i = 0; i < segments.size(); i++) {
            String segment = segments.get(i);
            boolean placeholder = segment.startsWith("{");
            if (placeholder ? parts[i].isEmpty() : !segment.equals(parts[i])) {
                return false;
            }
        }
        return true;
    }

    /** The templates as written, in their order. */
    public List<String> templates() {
        return templates.stream().map(Template::text).toList();
    }

    public String describe() {
        return templates.isEmpty() ? "every object is its own resource"
                : templates.stream().map(Template::text).toList() + ", other writes " + (unscoped == Unscoped.REFUSE ? "refused" : "fenced per object");
    }
}
