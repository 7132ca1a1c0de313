package dev.fencegate.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.Gateway;
import dev.fencegate.config.DatabaseConfig;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.demo.AppliedWrite;
import dev.fencegate.demo.MemoryObjectStore;
import dev.fencegate.testing.GatewayHarness;
import dev.fencegate.testing.NoNettyLeaks;
import dev.fencegate.testing.RawHttp;
import dev.fencegate.testing.StoreLink;
import dev.fencegate.testing.TcpRelay;
import dev.fencegate.testing.TestPostgres;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An instance whose write to the store is held back by a full socket (the store reads nothing for
 * a while) has the end of that write queued in the gateway, not yet in the kernel. Then the
 * instance stalls as in a long GC pause: its event loops stop and its renewals fail (here its loops
 * are held by a task and its database connections cut). Its registration expires and another
 * instance lands a higher token. When the store reads again and the loops resume, an event loop
 * handles the socket's readiness before it runs its timers: the end of the old write must not go
 * out then. Rows here last 5 s (2 s upstream timeout plus 3 s).
 */
@ExtendWith(NoNettyLeaks.class)
class StalledEventLoopIT {

    /** More than the kernel keeps unsent (128 KiB) and in flight (the link's 64 KiB window), less than the gateway buffers. */
    private static final int BODY_BYTES = 384 * 1024;

    @Test
    void theEndOfAWriteQueuedBehindAFullStoreSocketIsNotSentAfterAStallPastItsRegistration() throws Exception {
        DatabaseConfig direct = TestPostgres.config(TestPostgres.newSchema("stalled_loop"));
        String path = "/jobs/stalled";
        try (TcpRelay database = TcpRelay.toJdbc(direct.url());
             MemoryObjectStore store = MemoryObjectStore.start(MemoryObjectStore.Options.loopback());
             StoreLink valve = StoreLink.held(store.port())) {
            DatabaseConfig relayed = new DatabaseConfig(database.jdbcUrl(direct.url()),
                    direct.schema(), direct.user(), direct.password(), direct.poolSize(), direct.checkTimeout());
            CountDownLatch resume = new CountDownLatch(1);
            try (Gateway stalled = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + valve.port()), relayed,
                         Duration.ofSeconds(2), Duration.ofSeconds(60), SafetyConfig.defaults()));
                 Gateway other = Gateway.start(GatewayHarness.config(URI.create("http://127.0.0.1:" + store.port()), direct,
                         Duration.ofSeconds(2)));
                 RawHttp worker = RawHttp.connect(stalled.port())) {
                worker.timeout(30_000);
                worker.send("PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: 5\r\nContent-Length: " + BODY_BYTES
                        + "\r\n\r\n" + "5".repeat(BODY_BYTES));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> PausedGatewayIT.fence(direct, path) == 5);
                Thread.sleep(500); // the whole body is read and handed to the store connection

                database.cut();
                try {
                    for (EventExecutor loop : eventLoops(stalled)) {
                        loop.execute(() -> awaitQuietly(resume));
                    }
                    HttpResponse<String> newer = PausedGatewayIT.putUntilAnswered(other.port(), path, 6);
                    assertThat(newer.statusCode()).as(newer.body()).isIn(201, 204);

                    valve.open();
                    Thread.sleep(300); // the kernel's share of the old write reaches the store
                } finally {
                    resume.countDown();
                }
                String answer = worker.readResponse();
                assertThat(RawHttp.status(answer)).as(answer).isGreaterThanOrEqualTo(500);
            }
            Thread.sleep(500);
            List<String> tokens = store.appliedTo(path).stream().map(AppliedWrite::fencingToken).toList();
            assertThat(tokens).as("the stalled write never lands after the new one").containsExactly("6");
        }
    }

    private static Iterable<EventExecutor> eventLoops(Gateway gateway) throws ReflectiveOperationException {
        Field server = Gateway.class.getDeclaredField("server");
        server.setAccessible(true);
        Object gatewayServer = server.get(gateway);
        Field group = gatewayServer.getClass().getDeclaredField("group");
        group.setAccessible(true);
        return (EventLoopGroup) group.get(gatewayServer);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
