package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The keys an operator may name on the admin port: only those writes are checked against (ClaimRules.whyNoWriteIsFencedUnder). */
class AdminKeysTest {

    /** Under http and webdav a write to / is a collection write, refused: a raise of / fences nothing. */
    @Test
    void theRootIsRefusedWhereItIsACollection() {
        ClaimRules http = new ClaimRules(new GenericHttpIdentity(), ResourceScopes.perObject(), Optional.empty());
        ClaimRules webdav = new ClaimRules(new WebDavIdentity(), ResourceScopes.perObject(), Optional.empty());

        assertThat(http.identity().identify("PUT", "/", "store.internal", null)).isInstanceOf(StoreIdentity.Identified.Refused.class);
        assertThat(http.whyNoWriteIsFencedUnder(new ResourceKey("/"))).isPresent();
        assertThat(webdav.whyNoWriteIsFencedUnder(new ResourceKey("/"))).isPresent();
    }

    /** Under the S3 kinds a write of / names no bucket and is refused before its fence: a raise of / fences nothing either. */
    @Test
    void theRootIsRefusedUnderTheS3KindsWhereNoWriteNamesIt() {
        VirtualHosts domains = new VirtualHosts(List.of("s3.example.com"));
        for (StoreIdentity identity : List.of(new S3PathIdentity(domains), new S3VirtualHostIdentity(domains))) {
            ClaimRules s3 = new ClaimRules(identity, ResourceScopes.perObject(), Optional.empty());
            assertThat(s3.whyNoWriteIsFencedUnder(new ResourceKey("/"))).as(identity.kind()).isPresent();
            assertThat(s3.whyNoWriteIsFencedUnder(new ResourceKey("/bucket"))).as(identity.kind()).isEmpty();
        }
    }
}
