package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
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
}
