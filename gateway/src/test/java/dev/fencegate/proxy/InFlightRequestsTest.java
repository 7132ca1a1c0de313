package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

class InFlightRequestsTest {

    private final InFlightRequests requests = new InFlightRequests();
    private final EmbeddedChannel client = new EmbeddedChannel(requests);

    /**
     * An answer whose head went out saying keep-alive before the drain began, and whose end goes
     * out after: its connection is closed once the answer is out, as one begun during the drain
     * is, so the client's next request does not meet the event loops' shutdown on it.
     */
    @Test
    void anAnswerBegunBeforeTheDrainClosesItsConnectionOnceItEnds() {
        receiveRequest();
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpUtil.setContentLength(head, 0);
        client.writeAndFlush(head);

        requests.draining();
        client.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);

        assertThat(requests.count()).isZero();
        assertThat(client.isOpen()).as("connection open after the answer ended").isFalse();
        releaseOutbound();
    }

    @Test
    void anAnswerWrittenWhileDrainingSaysConnectionCloseAndClosesItsConnection() {
        receiveRequest();
        requests.draining();
        DefaultFullHttpResponse answer = emptyAnswer();

        client.writeAndFlush(answer);

        assertThat(answer.headers().get(HttpHeaderNames.CONNECTION)).isEqualToIgnoringCase("close");
        assertThat(client.isOpen()).isFalse();
        releaseOutbound();
    }

    @Test
    void anAnswerThatEndsBeforeTheDrainKeepsItsConnection() {
        receiveRequest();
        client.writeAndFlush(emptyAnswer());

        requests.draining();

        assertThat(requests.count()).isZero();
        assertThat(client.isOpen()).isTrue();
        releaseOutbound();
        client.finishAndReleaseAll();
    }

    /** A 200 with no body, keeping its connection as HTTP/1.1 does unless told otherwise. */
    private static DefaultFullHttpResponse emptyAnswer() {
        DefaultFullHttpResponse answer = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpUtil.setContentLength(answer, 0);
        return answer;
    }

    private void receiveRequest() {
        client.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/b/k"));
        ReferenceCountUtil.release(client.readInbound());
        assertThat(requests.count()).isEqualTo(1);
    }

    private void releaseOutbound() {
        Object message;
        while ((message = client.readOutbound()) != null) {
            ReferenceCountUtil.release(message);
        }
    }
}
