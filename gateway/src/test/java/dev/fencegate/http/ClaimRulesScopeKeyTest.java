package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Under --unscoped-writes per-object, an object that bears a job's key would be fenced as the job. */
class ClaimRulesScopeKeyTest {

    private final ClaimRules rules = new ClaimRules(new S3PathIdentity(new VirtualHosts(List.of("localhost"))),
            ResourceScopes.parse("/{bucket}/jobs/{job}/**", ResourceScopes.Unscoped.PER_OBJECT), Optional.empty());

    private ClaimParser.ClaimParse write(String object) {
        return rules.parse(new ResourceKey(object), List.of("6"), List.of(), List.of());
    }

    @Test
    void anObjectNamedAsAJobsKeyIsRefusedRatherThanShareTheJobsFence() {
        ClaimParser.ClaimParse named = write("/bkt/jobs/91");

        assertThat(named).isInstanceOfSatisfying(ClaimParser.ClaimParse.Refused.class, refused -> {
            assertThat(refused.problem().outcome()).isEqualTo(Outcome.OUTSIDE_EVERY_SCOPE);
            assertThat(refused.problem().detail()).contains("has the name of a job's key");
        });
        assertThat(write("/bkt/jobs/91/part-0")).isInstanceOfSatisfying(ClaimParser.ClaimParse.Valid.class,
                valid -> assertThat(valid.claim().resource()).isEqualTo(new ResourceKey("/bkt/jobs/91")));
        assertThat(write("/bkt/other")).isInstanceOfSatisfying(ClaimParser.ClaimParse.Valid.class,
                valid -> assertThat(valid.claim().resource()).isEqualTo(new ResourceKey("/bkt/other")));
    }

    /**
     * A bucket's own name under /{bucket}/**: CreateBucket and DeleteBucket are writes of the
     * bucket, at its fence, whatever --unscoped-writes says. Under http a top-level name is an
     * object like any other, and is refused.
     */
    @Test
    void aBucketScopedAsAJobIsStillWrittenAtItsFence() {
        for (ResourceScopes.Unscoped unscoped : ResourceScopes.Unscoped.values()) {
            ClaimRules buckets = new ClaimRules(new S3PathIdentity(new VirtualHosts(List.of("localhost"))),
                    ResourceScopes.parse("/{bucket}/**", unscoped), Optional.empty());

            assertThat(buckets.parse(new ResourceKey("/bkt"), List.of("6"), List.of(), List.of())).as(unscoped.name())
                    .isInstanceOfSatisfying(ClaimParser.ClaimParse.Valid.class,
                            valid -> assertThat(valid.claim().resource()).isEqualTo(new ResourceKey("/bkt")));
        }
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(),
                ResourceScopes.parse("/{job}/**", ResourceScopes.Unscoped.PER_OBJECT), Optional.empty());
        assertThat(http.parse(new ResourceKey("/42"), List.of("6"), List.of(), List.of()))
                .isInstanceOf(ClaimParser.ClaimParse.Refused.class);
    }
}
