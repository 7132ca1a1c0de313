package dev.fencegate.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.TlsConfig;
import dev.fencegate.s3.S3Store;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.StoreCertificates;
import dev.fencegate.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A store reached by {@code https}: a real S3 store (S3Proxy) serving TLS only. */
@ExtendWith(NoNettyLeaks.class)
class StoreTlsIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    @Test
    void anHttpsStoreGetsEveryAdmittedWriteOverVerifiedTlsAndNoStaleOne() throws Exception {
        StoreCertificates certificate = StoreCertificates.make(dir, "store", "ip:127.0.0.1");
        try (S3Store store = S3Store.anonymousOverTls(certificate.keystore(), StoreCertificates.PASSWORD);
             Gateway gateway = Gateway.start(config(store.port(), "store_tls", certificate.pem()))) {
            store.createBucket("reports");

            assertThat(put(gateway, "/reports/q3.csv", 5, "written at 5").statusCode()).isEqualTo(200);
            assertThat(store.object("reports", "q3.csv")).contains("written at 5");
            HttpResponse<String> stale = put(gateway, "/reports/q3.csv", 4, "written at 4");
            assertThat(stale.statusCode()).as(stale.body()).isEqualTo(412);
            assertThat(store.object("reports", "q3.csv")).contains("written at 5");
            // Again on the connection the first write left open.
            assertThat(put(gateway, "/reports/q3.csv", 6, "written at 6").statusCode()).isEqualTo(200);
            assertThat(store.object("reports", "q3.csv")).contains("written at 6");
            HttpResponse<String> read = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/reports/q3.csv"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(read.body()).isEqualTo("written at 6");
        }
    }

    @Test
    void aStoreWhoseCertificateIsNotTrustedGets502AndIsSentNothing() throws Exception {
        StoreCertificates certificate = StoreCertificates.make(dir, "store", "ip:127.0.0.1");
        StoreCertificates other = StoreCertificates.make(dir, "other", "ip:127.0.0.1");
        try (S3Store store = S3Store.anonymousOverTls(certificate.keystore(), StoreCertificates.PASSWORD);
             Gateway gateway = Gateway.start(config(store.port(), "store_tls_untrusted", other.pem()))) {
            store.createBucket("reports");

            HttpResponse<String> refused = put(gateway, "/reports/q3.csv", 5, "written at 5");

            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(502);
            // Java 25 puts the alert's name, "(certificate_unknown) ", before the JDK's reason.
            assertThat(refused.body()).containsPattern("store connection failed: TLS handshake failed: (\\(certificate_unknown\\) )?PKIX path building failed")
                    .contains("must chain to --upstream-ca");
            assertThat(store.object("reports", "q3.csv")).isEmpty();
        }
    }

    private static GatewayConfig config(int storePort, String schema, Path ca) {
        GatewayConfig base = GatewayHarness.config(URI.create("https://127.0.0.1:" + storePort),
                TestPostgres.config(TestPostgres.newSchema(schema)), Duration.ofSeconds(5));
        return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                base.safety(), base.ioThreads(), base.operations(), base.scopes(), TlsConfig.off().trustingStoreCa(ca.toString()));
    }

    private static HttpResponse<String> put(Gateway gateway, String path, long token, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                .header("Fencing-Token", Long.toString(token)).PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
