package dev.fencegate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** --store-kind picks the identity rules; a kind that cannot work with the other settings fails at start, saying why. */
class StoreKindTest {

    @Test
    void theDefaultIsS3PathStyleAndEachKindIsNamedAsItIsWritten() {
        assertThat(configOf().limits().storeKind()).isEqualTo(StoreKind.S3_PATH);
        assertThat(configOf("--store-kind", "webdav").limits().storeKind()).isEqualTo(StoreKind.WEBDAV);
        assertThat(configOf("--store-kind", "http").limits().storeKind()).isEqualTo(StoreKind.HTTP);
        assertThat(configOf("--store-kind", "s3-virtual-host", "--virtual-host-domains", "s3.example.com,localhost")
                .limits().storeKind()).isEqualTo(StoreKind.S3_VIRTUAL_HOST);
    }

    @Test
    void anUnknownKindNamesTheKindsExpected() {
        assertThat(catchThrowable(() -> configOf("--store-kind", "S3")))
                .hasMessageContaining("--store-kind: 'S3' (expected http, webdav, s3-path, s3-virtual-host)");
    }

    @Test
    void virtualHostingNeedsTheStoresDomains() {
        assertThat(catchThrowable(() -> configOf("--store-kind", "s3-virtual-host", "--virtual-host-domains", "")))
                .hasMessageContaining("--virtual-host-domains: empty (expected the store's base domains");
    }

    @Test
    void aDomainUnderAnotherIsRefusedBecauseAHostBelowBothWouldNameTwoBuckets() {
        assertThat(catchThrowable(() -> configOf("--store-kind", "s3-virtual-host", "--virtual-host-domains", "example,s3.example")))
                .hasMessageContaining("'s3.example' is under 'example'");
        assertThat(catchThrowable(() -> configOf("--store-kind", "s3-virtual-host", "--virtual-host-domains", "S3.example")))
                .hasMessageContaining("expected a lower-case host name");
        assertThat(catchThrowable(() -> configOf("--store-kind", "s3-virtual-host", "--virtual-host-domains", "localhost:9000")))
                .hasMessageContaining("without port");
    }

    /**
     * Under s3-path a write whose Host is below a domain is refused; a domain with a port or a trailing dot
     * has no Host below it and would refuse nothing, so domains are spelt as under s3-virtual-host.
     */
    @Test
    void underPathStyleADomainSpeltSoNoHostIsBelowItIsRefused() {
        for (String domain : new String[] {"s3.example.com:9000", "s3.example.com.", "S3.example.com", ".s3.example.com"}) {
            assertThat(catchThrowable(() -> configOf("--virtual-host-domains", domain))).as(domain)
                    .hasMessageContaining("--virtual-host-domains: '" + domain + "' (expected a lower-case host name or address,"
                            + " without port or trailing dot)");
        }
        assertThat(configOf("--virtual-host-domains", "s3.example.com, localhost").limits().virtualHostDomainList())
                .containsExactly("s3.example.com", "localhost");
        assertThat(configOf("--virtual-host-domains", "").limits().virtualHostDomainList()).isEmpty();
        assertThat(configOf("--store-kind", "webdav", "--virtual-host-domains", "unused:1").limits().storeKind()).isEqualTo(StoreKind.WEBDAV);
    }

    /**
     * Under s3-virtual-host an unlisted name is a bucket (CNAME style), but a store reads the name it
     * is reached by as itself: with that name unlisted, {@code Host: localhost} and
     * {@code Host: b.localhost} would be two fences for the store's one object {@code b/k}.
     */
    @Test
    void underVirtualHostingTheStoresOwnNameMustBeListed() {
        assertThat(catchThrowable(() -> configReaching("http://localhost:9000", "--store-kind", "s3-virtual-host",
                "--virtual-host-domains", "s3.example.test")))
                .hasMessageContaining("--virtual-host-domains: 's3.example.test' (expected the --upstream host name 'localhost'"
                        + " among them");
        assertThat(catchThrowable(() -> configReaching("http://S3.Example.com:9000", "--store-kind", "s3-virtual-host",
                "--virtual-host-domains", "s3.example.test"))).hasMessageContaining("host name 's3.example.com'");
        assertThat(configReaching("http://localhost:9000", "--store-kind", "s3-virtual-host", "--virtual-host-domains",
                "s3.example.test,localhost").limits().storeKind()).isEqualTo(StoreKind.S3_VIRTUAL_HOST);
        assertThat(configReaching("http://localhost.:9000", "--store-kind", "s3-virtual-host", "--virtual-host-domains",
                "localhost").limits().storeKind()).isEqualTo(StoreKind.S3_VIRTUAL_HOST);
        assertThat(configReaching("http://127.0.0.1:9000", "--store-kind", "s3-virtual-host", "--virtual-host-domains",
                "s3.example.test").limits().storeKind()).isEqualTo(StoreKind.S3_VIRTUAL_HOST);
        assertThat(configReaching("http://[::1]:9000", "--store-kind", "s3-virtual-host", "--virtual-host-domains",
                "s3.example.test").limits().storeKind()).isEqualTo(StoreKind.S3_VIRTUAL_HOST);
        assertThat(configReaching("http://localhost:9000", "--virtual-host-domains", "s3.example.test").limits().storeKind())
                .isEqualTo(StoreKind.S3_PATH);
    }

    private static GatewayConfig configOf(String... args) {
        return configReaching("http://127.0.0.1:9000", args);
    }

    private static GatewayConfig configReaching(String upstream, String... args) {
        GatewayOptionsTest.Wrapper wrapper = new GatewayOptionsTest.Wrapper();
        String[] all = new String[args.length + 2];
        all[0] = "--upstream";
        all[1] = upstream;
        System.arraycopy(args, 0, all, 2, args.length);
        new CommandLine(wrapper).parseArgs(all);
        return wrapper.options.toConfig(Map.of());
    }
}
