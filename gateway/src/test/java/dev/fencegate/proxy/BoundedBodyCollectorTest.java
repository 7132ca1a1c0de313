package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
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
        assertThat(budget.held()).isEqualTo(6);
        LastHttpContent body = collector.take();
        assertThat(budget.held()).as("handed over, out of the budget").isZero();
        collector.release();
        assertThat(budget.held()).isZero();
        assertThat(body.content().toString(StandardCharsets.US_ASCII)).isEqualTo("abcdef");
        assertThat(body.trailingHeaders().get("x-amz-checksum-crc32")).isEqualTo("abc=");
        assertThat(body.release()).isTrue();
        assertThat(first.refCnt()).as("the parts are owned by the body handed over").isZero();
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
        BodyBudget budget = new BodyBudget(8);
        BoundedBodyCollector one = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        BoundedBodyCollector two = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        BoundedBodyCollector three = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5, budget);
        HttpContent kept = content("abcd");
        HttpContent twoFirst = content("ab");
        HttpContent twoSecond = content("cde");

        assertThat(one.add(kept)).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(two.add(twoFirst)).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(two.add(twoSecond)).as("4 + 2 + 3 > 8").isEqualTo(BoundedBodyCollector.Added.NO_ROOM);
        assertThat(twoFirst.refCnt()).isZero();
        assertThat(twoSecond.refCnt()).isZero();
        assertThat(budget.held()).as("the refused body gave back what it held").isEqualTo(4);

        assertThat(three.add(content("abcd"))).isEqualTo(BoundedBodyCollector.Added.KEPT);
        assertThat(budget.held()).isEqualTo(8);
        one.release();
        three.release();
        assertThat(budget.held()).isZero();
        assertThat(kept.refCnt()).isZero();
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
    @Test
    void aStreamOfTheBodyOutlivesTheCollectorsReleaseUntilItIsClosed() throws IOException {
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 10, new BodyBudget(100));
        HttpContent first = content("abc");
        collector.add(first);
        collector.add(new DefaultLastHttpContent(Unpooled.copiedBuffer("def", StandardCharsets.US_ASCII)));
        InputStream stream = collector.stream();

        collector.release();
        assertThat(first.refCnt()).as("still held by the stream").isPositive();
        assertThat(new String(stream.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdef");

        stream.close();
        assertThat(first.refCnt()).isZero();
    }

    private static HttpContent content(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }
}
