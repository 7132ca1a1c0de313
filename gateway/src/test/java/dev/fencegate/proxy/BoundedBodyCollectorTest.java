package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The one buffered body: kept whole up to its limit, released on every path. */
class BoundedBodyCollectorTest {

    @Test
    void keepsTheBodyWholeWithItsTrailersAndHandsItOver() {
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 10);
        HttpContent first = content("abc");
        LastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("def", StandardCharsets.US_ASCII));
        last.trailingHeaders().set("x-amz-checksum-crc32", "abc=");

        assertThat(collector.add(first)).isTrue();
        assertThat(collector.complete()).isFalse();
        assertThat(collector.add(last)).isTrue();

        assertThat(collector.complete()).isTrue();
        assertThat(new String(collector.bytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdef");
        LastHttpContent body = collector.take();
        collector.release();
        assertThat(body.content().toString(StandardCharsets.US_ASCII)).isEqualTo("abcdef");
        assertThat(body.trailingHeaders().get("x-amz-checksum-crc32")).isEqualTo("abc=");
        assertThat(body.release()).isTrue();
        assertThat(first.refCnt()).as("the parts are owned by the body handed over").isZero();
        assertThat(last.refCnt()).isZero();
    }

    @Test
    void growingPastTheLimitReleasesEverything() {
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5);
        HttpContent first = content("abc");
        HttpContent second = content("def");

        assertThat(collector.add(first)).isTrue();
        assertThat(collector.add(second)).isFalse();

        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
        collector.release();
    }

    @Test
    void releaseBeforeTheEndFreesWhatWasKept() {
        BoundedBodyCollector collector = new BoundedBodyCollector(ByteBufAllocator.DEFAULT, 5);
        HttpContent first = content("abc");
        collector.add(first);

        collector.release();
        collector.release();

        assertThat(first.refCnt()).isZero();
    }

    private static HttpContent content(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }
}
