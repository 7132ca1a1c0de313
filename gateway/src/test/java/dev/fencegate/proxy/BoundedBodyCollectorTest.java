package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The one buffered body: kept whole up to its limit and within the shared budget, released on every path. */
class BoundedBodyCollectorTest {

    @Test
    void keepsTheBodyWholeWithItsTrailersAndHandsItOver() throws IOException {
        BodyBudget budget = new BodyBudget(100);
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 10, budget);
        HttpContent first = content("abc");
        LastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("def", StandardCharsets.US_ASCII));
        last.trailingHeaders().set("x-amz-checksum-crc32", "abc=");

        assertThat(collector.add(first)).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(collector.complete()).isFalse();
        assertThat(collector.add(last)).isEqualTo(BoundedBodyCollector.Added.KEPT);

        assertThat(collector.complete()).isTrue();
        try (InputStream once = collector.stream(); InputStream again = collector.stream()) {
            assertThat(new String(once.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdef");
            assertThat(new String(again.readAllBytes(), StandardCharsets.US_ASCII)).as("read in place, again").isEqualTo("abcdef");
        }
        assertThat(budget.held()).as("the buffer's capacity: the limit, below the first allocation").isEqualTo(10);
        LastHttpContent body = collector.take();
        assertThat(budget.held()).as("handed over, out of the budget").isZero();
        collector.release();
        assertThat(budget.held()).isZero();
        assertThat(body.content().toString(StandardCharsets.US_ASCII)).isEqualTo("abcdef");
        assertThat(body.trailingHeaders().get("x-amz-checksum-crc32")).isEqualTo("abc=");
        assertThat(body.release()).isTrue();
        assertThat(first.refCnt()).as("each chunk is copied and released").isZero();
        assertThat(last.refCnt()).isZero();
    }

    @Test
    void growingPastTheLimitReleasesEverything() {
        BodyBudget budget = new BodyBudget(100);
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        HttpContent first = content("abc");
        HttpContent second = content("def");

        assertThat(collector.add(first)).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(collector.add(second)).isEqualTo(BoundedBodyCollector.Added.TOO_LARGE);

        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
        assertThat(budget.held()).isZero();
        collector.release();
        assertThat(budget.held()).isZero();
    }

    /**
     * Each body within its own limit, many at once still cannot take the memory every other
     * request needs: a body that would pass the shared budget is refused and frees what it held,
     * and the room comes back as the others are released or handed over.
     */
    @Test
    void bodiesHeldAtOnceStayWithinTheSharedBudget() {
        BodyBudget budget = new BodyBudget(12);
        BoundedBodyCollector one = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        BoundedBodyCollector two = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        BoundedBodyCollector three = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        HttpContent kept = content("abcd");
        HttpContent refused = content("a");

        assertThat(one.add(kept)).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(two.add(content("ab"))).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(budget.held()).as("each buffer's capacity, the limit here").isEqualTo(10);
        assertThat(three.add(refused)).as("10 + 5 > 12").isEqualTo(BoundedBodyCollector.Added.NO_ROOM);
        assertThat(refused.refCnt()).isZero();
        assertThat(budget.held()).as("the refused body holds nothing").isEqualTo(10);

        one.release();
        BoundedBodyCollector four = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        assertThat(four.add(content("abcde"))).as("room given back").isEqualTo(BoundedBodyCollector.Added.KEPT);
        two.release();
        four.release();
        assertThat(budget.held()).isZero();
        assertThat(kept.refCnt()).isZero();
    }

    /**
     * A chunk the decoder cut from a large read buffer, kept as it came, would keep that whole
     * buffer alive: a body of small chunks behind long chunk extensions held far more memory
     * than its bytes, and than the budget counted.
     */
    @Test
    void aChunkIsCopiedSoTheBufferItWasCutFromIsNotKept() {
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 1_000, new BodyBudget(1 << 20));
        ByteBuf readBuffer = Unpooled.buffer(64 * 1024).writeZero(64 * 1024);

        assertThat(collector.add(new DefaultHttpContent(readBuffer.retainedSlice(0, 10)))).isEqualTo(BoundedBodyCollector.Added.KEPT);

        assertThat(readBuffer.release()).as("the read buffer's last reference was the reader's").isTrue();
        collector.release();
    }

    @Test
    void releaseBeforeTheEndFreesWhatWasKept() {
        BodyBudget budget = new BodyBudget(100);
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        HttpContent first = content("abc");
        collector.add(first);

        collector.release();
        collector.release();

        assertThat(first.refCnt()).isZero();
        assertThat(budget.held()).isZero();
    }

    /** The keys are read on another thread, and the request may end meanwhile: the stream keeps the body until it is closed. */
    /**
     * A client that closes as soon as its body is in leaves the keys still to be read: the body
     * counts against the budget until the reading stream lets go of it, or bodies being read
     * would pile up past the budget unrefused.
     */
    @Test
    void aBodyBeingReadCountsAgainstTheBudgetUntilItsStreamIsClosed() throws IOException {
        BodyBudget budget = new BodyBudget(40_000);
        BoundedBodyCollector collector = new BoundedBodyCollector(UnpooledByteBufAllocator.DEFAULT, 30_000, budget);
        collector.add(new DefaultLastHttpContent(Unpooled.wrappedBuffer(new byte[30_000])));
        long charged = budget.held();
        InputStream reading = collector.stream();

        collector.release();
        assertThat(budget.held()).as("released by the collector, still being read").isEqualTo(charged);
        BoundedBodyCollector next = new BoundedBodyCollector(UnpooledByteBufAllocator.DEFAULT, 30_000, budget);
        assertThat(next.add(new DefaultLastHttpContent(Unpooled.wrappedBuffer(new byte[30_000]))))
                .as("a second body while the first is read").isEqualTo(BoundedBodyCollector.Added.NO_ROOM);

        reading.close();
        reading.close();
        assertThat(budget.held()).isZero();
    }

    @Test
    void aStreamOfTheBodyOutlivesTheCollectorsReleaseUntilItIsClosed() throws IOException {
        BoundedBodyCollector collector = new BoundedBodyCollector(UnpooledByteBufAllocator.DEFAULT, 10, new BodyBudget(100));
        collector.add(content("abc"));
        collector.add(new DefaultLastHttpContent(Unpooled.copiedBuffer("def", StandardCharsets.US_ASCII)));
        InputStream stream = collector.stream();

        collector.release();
        collector.release(); // safe to call more than once: the second takes nothing of the stream's
        // A buffer freed under the stream would throw here (IllegalReferenceCountException).
        assertThat(new String(stream.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdef");
        stream.close();
    }

    private static HttpContent content(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }
}
