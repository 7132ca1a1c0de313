package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The keys an operator may name on the admin port: only those writes are checked against (ClaimRules.whyNoWriteIsFencedUnder). */
class AdminKeysTest {

    private static ResourceKey resourceOfWrite(ClaimRules rules, String path) {
        StoreIdentity.Identified identified = rules.identity().identify("PUT", path, "store.internal", null);
        ResourceKey object = ((StoreIdentity.Identified.Resource) identified).key();
        return rules.scopes().resourceOf(object).orElseThrow();
    }

    /** With a broader template first, /data/jobs/42 is shadowed: every write under it is fenced as /data. */
    @Test
    void aScopeKeyShadowedByAnEarlierTemplateIsRefused() {
        ClaimRules rules = new ClaimRules(new S3PathIdentity(new VirtualHosts(List.of("localhost"))),
                ResourceScopes.parse("/{bucket}/**,/{bucket}/jobs/{job}/**", ResourceScopes.Unscoped.PER_OBJECT), Optional.empty());

        assertThat(resourceOfWrite(rules, "/data/jobs/42/part-0")).isEqualTo(new ResourceKey("/data"));
        assertThat(rules.whyNoWriteIsFencedUnder(new ResourceKey("/data/jobs/42"))).as("no write is checked against it").isPresent();
    }

    /** Under http and webdav a write to / is a collection write, refused: a raise of / fences nothing. */
    @Test
    void theRootIsRefusedWhereItIsACollection() {
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        ClaimRules webdav = new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty());

        assertThat(http.identity().identify("PUT", "/", "store.internal", null)).isInstanceOf(StoreIdentity.Identified.Refused.class);
        assertThat(http.whyNoWriteIsFencedUnder(new ResourceKey("/"))).isPresent();
        assertThat(webdav.whyNoWriteIsFencedUnder(new ResourceKey("/"))).isPresent();
    }
}
