package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.ErrorFormat;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A DeleteObjects body read before its keys are judged, within its own limit and the budget all such bodies share. */
class DeleteObjectsIntakeTest {

    /** The bodies being read at once fill the budget: the next is refused as busy, to be retried, not as too large. */
    @Test
    void aBodyPastTheSharedBudgetIsRefusedAsBusy() {
        BodyBudget budget = new BodyBudget(EdgePolicy.MAX_BUFFERED_BODY);
        DeleteObjectsIntake holding = intake(budget);
        DeleteObjectsIntake next = intake(budget);
        assertThat(holding.add(content(EdgePolicy.MAX_BUFFERED_BODY))).isNull();

        Problem refused = next.add(content(1));

        assertThat(refused.outcome()).isEqualTo(Outcome.BODIES_BUSY);
        holding.release();
        DeleteObjectsIntake after = intake(budget);
        assertThat(after.add(content(1))).as("room given back").isNull();
        after.release();

        EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        Replies.problem(channel.pipeline().firstContext(), refused, true, ErrorFormat.S3_XML, "/b?delete");
        FullHttpResponse answer = channel.readOutbound();
        assertThat(answer.status().code()).isEqualTo(503);
        assertThat(answer.headers().get("Retry-After")).as("SDKs retry it").isNotNull();
        assertThat(answer.content().toString(StandardCharsets.UTF_8)).contains("FencegateBodiesBusy");
        answer.release();
        channel.finishAndReleaseAll();
    }

    private static DeleteObjectsIntake intake(BodyBudget budget) {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/b?delete");
        head.headers().set("Fencing-Token", "3");
        DeleteObjectsIntake.Start start = DeleteObjectsIntake.start(head, "/b", EdgePolicy.MAX_BUFFERED_BODY, budget,
                ByteBufAllocator.DEFAULT, ClaimRules.plain());
        return ((DeleteObjectsIntake.Start.Ready) start).intake();
    }

    private static HttpContent content(int bytes) {
        return new DefaultHttpContent(Unpooled.buffer(bytes).writeZero(bytes));
    }
}
