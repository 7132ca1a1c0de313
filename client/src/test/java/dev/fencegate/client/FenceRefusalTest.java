package dev.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Both of the gateway's fenced-out answers, in both of its formats, are refusals; a store's own 412 is not. */
class FenceRefusalTest {

    @Test
    void aReusedTokenIsAFenceRefusalLikeAStaleOneInEitherFormat() {
        assertThat(FenceRefusal.inBody("{\"type\":\"urn:fencegate:problem:reused-token\",\"title\":\"Fencing token was granted to another holder\"}"))
                .contains(FenceRefusal.REUSED_TOKEN);
        assertThat(FenceRefusal.inBody("<?xml version=\"1.0\"?><Error><Code>FencingTokenReused</Code><Message>m</Message></Error>"))
                .contains(FenceRefusal.REUSED_TOKEN);
        assertThat(FenceRefusal.inBody("{\"type\":\"urn:fencegate:problem:stale-token\"}")).contains(FenceRefusal.STALE_TOKEN);
        assertThat(FenceRefusal.inBody("<Error><Code> FencingTokenStale </Code></Error>")).contains(FenceRefusal.STALE_TOKEN);

        assertThat(FenceRefusal.inBody("<Error><Code>PreconditionFailed</Code></Error>")).as("the store's own 412").isEmpty();
        assertThat(FenceRefusal.inBody("{\"type\":\"urn:fencegate:problem:fence-unavailable\"}")).isEmpty();
    }
}
