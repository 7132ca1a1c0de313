package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencegate.fence.ResourceKey;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Job scopes: every object under a job shares the job's fence; writes under no scope follow the policy. */
class ResourceScopesTest {

    private final ResourceScopes scopes = ResourceScopes.parse("/{bucket}/jobs/{job}/**, /shared/areas/{area}/**",
            ResourceScopes.Unscoped.REFUSE);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "/data/jobs/7/part-0001.parquet, /data/jobs/7",
            "/data/jobs/7/out/deep/file, /data/jobs/7",
            "/data/jobs/7/, /data/jobs/7",
            "/other/jobs/x%20y/_SUCCESS, /other/jobs/x%20y",
            "/shared/areas/conf/config.json, /shared/areas/conf"})
    void objectsUnderAScopeShareItsFence(String path, String resource) {
        assertThat(scopes.resourceOf(new ResourceKey(path))).hasValue(new ResourceKey(resource));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"/data/jobs/7", "/data/runs/7/file", "/data/jobs", "/elsewhere"})
    void writesUnderNoScopeAreRefusedByDefault(String path) {
        assertThat(scopes.resourceOf(new ResourceKey(path))).isEmpty();
    }

    /**
     * Templates of different depths that one path matches would fence a job's objects under two
     * keys, or leave the deeper one dead: refused at start, naming both and a path they share.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "/{bucket}/jobs/{job}/out/**,/{bucket}/jobs/{job}/**|/x/jobs/x/out/object",
            "/{bucket}/**,/{bucket}/jobs/{job}/**|/x/jobs/x/object",
            "/{bucket}/jobs/{job}/**,/shared/**|/shared/jobs/x/object",
            "/data/{job}/**,/{bucket}/jobs/{job}/part/**|/data/jobs/x/part/object"})
    void templatesThatNestOrShadowEachOtherAreRefused(String templates, String shared) {
        assertThatThrownBy(() -> ResourceScopes.parse(templates, ResourceScopes.Unscoped.REFUSE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("do not nest").hasMessageContaining(shared);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"/{bucket}/jobs/{job}/**,/{bucket}/runs/{run}/**", "/data/jobs/{job}/**,/shared/**"})
    void templatesOfOneDepthOrThatNoPathMatchesBothStandTogether(String templates) {
        assertThat(ResourceScopes.parse(templates, ResourceScopes.Unscoped.REFUSE).templates()).hasSize(2);
    }

    @Test
    void writesUnderNoScopeCanBeFencedPerObjectInstead() {
        ResourceScopes lenient = ResourceScopes.parse("/{bucket}/jobs/{job}/**", ResourceScopes.Unscoped.PER_OBJECT);
        assertThat(lenient.resourceOf(new ResourceKey("/data/runs/7/file"))).hasValue(new ResourceKey("/data/runs/7/file"));
        assertThat(lenient.resourceOf(new ResourceKey("/data/jobs/7/file"))).hasValue(new ResourceKey("/data/jobs/7"));
    }

    @Test
    void withoutScopesEveryObjectIsItsOwnResource() {
        assertThat(ResourceScopes.parse("", ResourceScopes.Unscoped.REFUSE).resourceOf(new ResourceKey("/a/b")))
                .isEqualTo(Optional.of(new ResourceKey("/a/b")));
    }

    /**
     * A literal segment is compared with canonical keys, so one that is not canonical matches
     * nothing: under per-object the scope silently does not apply, and a paused worker adds objects
     * to its old job at its own per-object fence.
     */
    @Test
    void aTemplateWhoseLiteralSegmentIsNotCanonicalIsRefused() {
        for (String bad : new String[] {"/{b}/date%3D2024/{job}/**", "/{b}/caf%c3%a9/{job}/**", "/{b}/a+b/{job}/**",
                "/{b}/./{job}/**", "/{b}/x;y/{job}/**", "/{b}/x y/{job}/**"}) {
            assertThatThrownBy(() -> ResourceScopes.parse(bad, ResourceScopes.Unscoped.PER_OBJECT)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--scopes");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "/{b}/date%3D2024/{job}/** | expected it as keys spell it: 'date=2024'",
            "/{b}/caf%c3%a9/{job}/**   | expected it as keys spell it: 'caf%C3%A9'",
            "/{b}/x%7e/{job}/**        | expected it as keys spell it: 'x~'",
            "/{b}/../{job}/**          | a dot segment",
            "/{b}/a+b/{job}/**         | send it as %2B",
            "/{b}/a?b/{job}/**         | expected '?' written %3F"})
    void aRefusedLiteralSegmentIsNamedWithTheSpellingExpected(String template, String expected) {
        assertThatThrownBy(() -> ResourceScopes.parse(template, ResourceScopes.Unscoped.REFUSE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--scopes: '" + template + "' has segment")
                .hasMessageContaining(expected);
    }

    @Test
    void aLiteralSegmentSpeltAsKeysAreMatchesTheWritesUnderIt() {
        ResourceScopes canonical = ResourceScopes.parse("/{b}/date=2024/caf%C3%A9/{job}/**", ResourceScopes.Unscoped.PER_OBJECT);

        assertThat(canonical.resourceOf(new ResourceKey("/b/date=2024/caf%C3%A9/7/part-0")))
                .hasValue(new ResourceKey("/b/date=2024/caf%C3%A9/7"));
    }

    @Test
    void malformedTemplatesAreRefusedNamingTheSetting() {
        for (String bad : new String[] {"jobs/**", "/{bucket}/jobs", "/a/**/b/**", "/{}/x/**", "/a{b}/**", "//**"}) {
            assertThatThrownBy(() -> ResourceScopes.parse(bad, ResourceScopes.Unscoped.REFUSE)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--scopes");
        }
    }
}
