package dev.fencegate.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.TlsConfig;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.proxy.GatewayServer;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/** TLS on the data port, and mutual TLS as worker authentication: no certificate, no write. */
@ExtendWith(NoNettyLeaks.class)
class MutualTlsIT {

    private static final String PASSWORD = "changeit";
    private static Path dir;

    @BeforeAll
    static void certificates() throws Exception {
        dir = Files.createTempDirectory("fencegate-tls");
        keytool("-genkeypair", "-alias", "gateway", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", "gateway.p12", "-storepass", PASSWORD);
        keytool("-genkeypair", "-alias", "worker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=worker-a",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", "worker.p12", "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", "worker", "-keystore", "worker.p12", "-storepass", PASSWORD, "-file", "worker.cer");
        keytool("-importcert", "-noprompt", "-alias", "worker", "-file", "worker.cer", "-storetype", "PKCS12",
                "-keystore", "workers.p12", "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", "gateway", "-keystore", "gateway.p12", "-storepass", PASSWORD, "-file", "gateway.cer");
        keytool("-importcert", "-noprompt", "-alias", "gateway", "-file", "gateway.cer", "-storetype", "PKCS12",
                "-keystore", "trusts-gateway.p12", "-storepass", PASSWORD);
    }

    @Test
    void onlyWorkersWithATrustedCertificateReachTheDataPort() throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(GatewayServer.class);
        logger.addAppender(log);
        try (GatewayHarness gateway = GatewayHarness.start(MemoryObjectStore.Options.loopback(), upstream -> {
            GatewayConfig base = GatewayHarness.config(upstream, TestPostgres.config(TestPostgres.newSchema("mtls")), Duration.ofSeconds(5));
            return new GatewayConfig(base.listen(), base.adminListen(), base.upstream(), base.database(),
                    base.upstreamConnectTimeout(), base.upstreamTimeout(), base.clientIdleTimeout(), base.limits(),
                    base.safety(), base.ioThreads(), base.operations(), base.scopes(),
                    new TlsConfig(dir.resolve("gateway.p12").toString(), PASSWORD, dir.resolve("workers.p12").toString(), PASSWORD));
        })) {
            URI uri = URI.create("https://127.0.0.1:" + gateway.port() + "/secure/k");
            HttpResponse<String> trusted = client(true).send(put(uri, 1), HttpResponse.BodyHandlers.ofString());
            assertThat(trusted.statusCode()).isEqualTo(201);

            assertThatThrownBy(() -> client(false).send(put(uri, 2), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);
            HttpResponse<String> plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                    .send(put(URI.create("http://127.0.0.1:" + gateway.port() + "/secure/k"), 3), HttpResponse.BodyHandlers.ofString());
            assertThat(plain.statusCode()).as("plain HTTP to the TLS port is told so").isEqualTo(400);
            assertThat(plain.body()).contains("this port speaks TLS only");
            assertThat(gateway.store.applied()).hasSize(1);
            assertThat(gateway.fenceRow("/secure/k")).isEqualTo(1);
            assertThat(log.list.stream().map(ILoggingEvent::getFormattedMessage).filter(line -> line.startsWith("Data port listening")))
                    .as("the start says the port speaks TLS").singleElement().asString()
                    .contains(":" + gateway.port() + " (TLS, client certificates required, ");
        } finally {
            logger.detachAppender(log);
        }
    }

    private static HttpRequest put(URI uri, long token) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).header("Fencing-Token", Long.toString(token))
                .PUT(HttpRequest.BodyPublishers.ofString("x")).build();
    }

    private static HttpClient client(boolean withCertificate) throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load("trusts-gateway.p12"));
        SSLContext context = SSLContext.getInstance("TLS");
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load("worker.p12"), PASSWORD.toCharArray());
        context.init(withCertificate ? keys.getKeyManagers() : null, trust.getTrustManagers(), null);
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(context).build();
    }

    private static KeyStore load(String name) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve(name))) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(output).isZero();
    }
}
