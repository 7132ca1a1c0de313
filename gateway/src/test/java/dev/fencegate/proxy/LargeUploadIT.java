package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TestPostgres;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bodies stream with backpressure and are never aggregated: a 1 GiB upload passes a 128 MiB heap. */
class LargeUploadIT {

    private static final long ONE_GIB = 1L << 30;

    @Test
    void oneGibUploadPassesThroughAGatewayWith128MiBHeap() throws Exception {
        try (MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback().withDiscard(true));
             GatewayProcess gateway = GatewayProcess.start(List.of("-Xmx128m", "-XX:MaxDirectMemorySize=64m"),
                     store.port(), TestPostgres.config(TestPostgres.newSchema("large_upload")))) {
            HttpRequest upload = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/big/object"))
                    .header("Fencing-Token", "1")
                    .PUT(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(Zeros::new), ONE_GIB))
                    .build();
            HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                    .send(upload, HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).as(gateway.output()).isBetween(200, 299);
            assertThat(gateway.process().isAlive()).isTrue();
            assertThat(gateway.output()).doesNotContain("OutOfMemoryError").doesNotContain("OutOfDirectMemoryError");
        }
    }

    /** Exactly one GiB of zero bytes, made as it is read. */
    private static final class Zeros extends InputStream {
        private long left = ONE_GIB;

        @Override
        public int read() {
            if (left == 0) {
                return -1;
            }
            left--;
            return 0;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            if (left == 0) {
                return -1;
            }
            int n = (int) Math.min(length, left);
            java.util.Arrays.fill(buffer, offset, offset + n, (byte) 0);
            left -= n;
            return n;
        }
    }
}
