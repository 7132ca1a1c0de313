package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.config.HostPort;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The warning at start says why the store cannot be reached. */
class StoreProbeTest {

    /** The JDK's message is the bare name, which alone reads as if the host were merely down. */
    @Test
    void aStoreHostNameThatDoesNotResolveIsNamedAsAnUnknownHost() {
        // .invalid never resolves (RFC 6761).
        assertThat(StoreProbe.problem(new HostPort("store.invalid", 9000), Duration.ofSeconds(2)))
                .contains("unknown host store.invalid");
    }
}
