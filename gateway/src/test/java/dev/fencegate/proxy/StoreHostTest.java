package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A URL of the store in its answer becomes the same URL of the gateway; any other URL is left as it is. */
class StoreHostTest {

    /** --upstream http://store.internal/pfx (port 80 by default), the data port on TLS. */
    private static final StoreHost BEHIND_TLS = new StoreHost(
            new StoreHost.Upstream("http", "store.internal", "store.internal", 80, "/pfx", "https"), "files.example.com:8443");
    /** --upstream http://127.0.0.1:9000, a plain data port. */
    private static final StoreHost PLAIN = new StoreHost(
            new StoreHost.Upstream("http", "127.0.0.1:9000", "127.0.0.1", 9000, "", "http"), "files.example.com");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "http://store.internal/pfx/b/new|https://files.example.com:8443/b/new",
            "http://store.internal:80/pfx/b/dir/|https://files.example.com:8443/b/dir/",
            "HTTP://Store.Internal/pfx/b/k?x=1#f|https://files.example.com:8443/b/k?x=1#f",
            "http://store.internal/pfx|https://files.example.com:8443/",
            "http://store.internal/pfxother/b|http://store.internal/pfxother/b",
            "http://store.internal/b/new|http://store.internal/b/new",
            "http://store.internal:8080/pfx/b|http://store.internal:8080/pfx/b",
            "https://store.internal/pfx/b|https://store.internal/pfx/b",
            "http://other.example/pfx/b|http://other.example/pfx/b",
            "http://user@store.internal/pfx/b|http://user@store.internal/pfx/b",
            "/pfx/b/new|/b/new",
            "/pfx|/",
            "/pfx?list-type=2|/?list-type=2",
            "/pfx#top|/#top",
            "/pfxother/b|/pfxother/b",
            "/b/new|/b/new",
            "//store.internal/pfx/b/new|//files.example.com:8443/b/new",
            "//other.example/pfx/b/new|//other.example/pfx/b/new",
            "/login?next=http://store.internal/pfx/b|/login?next=http://store.internal/pfx/b"})
    void aStoreUrlBehindAPathPrefixAndTlsBecomesTheGatewaysAndOthersStay(String url, String expected) {
        assertThat(BEHIND_TLS.givenBack(url)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "http://127.0.0.1:9000/b/new|http://files.example.com/b/new",
            "http://127.0.0.1/b/new|http://127.0.0.1/b/new",
            "http://[::1]:9000/b/new|http://[::1]:9000/b/new"})
    void aStoreUrlWithItsPortBecomesTheGatewaysAndAnotherPortStays(String url, String expected) {
        assertThat(PLAIN.givenBack(url)).isEqualTo(expected);
    }
}
