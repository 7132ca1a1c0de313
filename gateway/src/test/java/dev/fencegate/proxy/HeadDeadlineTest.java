package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequestDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When the head clock runs, on a frozen clock: from accept, from a head's first byte, never between requests. */
class HeadDeadlineTest {

    private static final long TIMEOUT_MS = 1_000;

    private final List<Object> events = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel();

    HeadDeadlineTest() {
        channel.freezeTime();
        HeadDeadline deadline = new HeadDeadline(Duration.ofMillis(TIMEOUT_MS));
        channel.pipeline().addLast(deadline.bytes(), new HttpRequestDecoder(), deadline.heads(), new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                events.add(event);
            }
        });
    }

    @Test
    void aHeadThatNeverCompletesExpiresOnceCountedFromAcceptHoweverTheBytesTrickle() {
        for (char c : "PUT /k HTTP/1.1\r\nHost: x\r\n".toCharArray()) {
            send(String.valueOf(c));
            elapse(TIMEOUT_MS / 40);
        }
        assertThat(events).isEmpty();
        elapse(TIMEOUT_MS);
        assertThat(events).containsExactly(HeadDeadline.EXPIRED);
        // Closing hands the decoder's partial head on as a failed request: released here.
        channel.finishAndReleaseAll();
    }

    @Test
    void aConnectionSilentSinceAcceptExpiresAtTheDeadline() {
        elapse(TIMEOUT_MS - 1);
        assertThat(events).isEmpty();
        elapse(1);
        assertThat(events).containsExactly(HeadDeadline.EXPIRED);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aKeptConnectionMayBeQuietBetweenRequestsAndTheNextHeadHasItsOwnClock() {
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        elapse(TIMEOUT_MS * 5);
        assertThat(events).as("quiet between requests").isEmpty();

        send("GET /b HTT");
        elapse(TIMEOUT_MS - 1);
        assertThat(events).isEmpty();
        elapse(1);
        assertThat(events).containsExactly(HeadDeadline.EXPIRED);
        channel.finishAndReleaseAll();
    }

    @Test
    void aSlowBodyIsNotTheHeadClocksBusiness() {
        send("PUT /k HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\na");
        elapse(TIMEOUT_MS * 3);
        send("bc");
        elapse(TIMEOUT_MS * 3);
        assertThat(events).isEmpty();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    private void send(String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
        // The decoded messages are of no interest here; release them as they come.
        for (Object message; (message = channel.readInbound()) != null; ) {
            io.netty.util.ReferenceCountUtil.release(message);
        }
    }

    private void elapse(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }
}
