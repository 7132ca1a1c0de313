package dev.fencegate.s3;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** An authenticating S3 store with a real gateway in front of it, and SDK clients pointed at the gateway. */
final class S3Gateway implements AutoCloseable {

    final S3Store store;
    final Gateway gateway;
    final DatabaseConfig database;
    /** Every HTTP attempt the SDK clients made, retries included. */
    final AtomicInteger attempts = new AtomicInteger();

    private S3Gateway(S3Store store, Gateway gateway, DatabaseConfig database) {
        this.store = store;
        this.gateway = gateway;
        this.database = database;
    }

    static S3Gateway start(String owner) throws InterruptedException {
        S3Store store = S3Store.authenticated();
        try {
            DatabaseConfig database = TestPostgres.config(TestPostgres.newSchema(owner));
            return new S3Gateway(store, startGateway(store, database), database);
        } catch (RuntimeException | InterruptedException e) {
            store.close();
            throw e;
        }
    }

    private static Gateway startGateway(S3Store store, DatabaseConfig database) throws InterruptedException {
        return Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), database, Duration.ofSeconds(30)));
    }

    /** Another gateway instance in front of the same store, sharing this one's fence database. */
    Gateway anotherInstance() throws InterruptedException {
        return startGateway(store, database);
    }

    /** An unmodified SDK client: path-style, static credentials, the given checksum behaviour. */
    S3Client client(RequestChecksumCalculation checksums) {
        return client(checksums, gateway.port());
    }

    /** The same, pointed at the gateway on {@code port}. */
    S3Client client(RequestChecksumCalculation checksums, int port) {
        return S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Store.IDENTITY, S3Store.CREDENTIAL)))
                .requestChecksumCalculation(checksums)
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                        attempts.incrementAndGet();
                    }
                }))
                .build();
    }

    /** The gateway's count of requests it answered with {@code outcome} (a metric tag), from its admin port. */
    double requestsWithOutcome(String outcome) throws IOException, InterruptedException {
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        double total = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("fencegate_requests_total{") && line.contains("outcome=\"" + outcome + "\"")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    @Override
    public void close() {
        try {
            gateway.close();
        } finally {
            store.close();
        }
    }
}
