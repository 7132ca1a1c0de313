package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import java.util.ArrayDeque;

/**
 * HTTP/1.1 to the store, as Netty's {@code HttpClientCodec} speaks it (each answer paired with
 * the request it answers, so a HEAD's answer has no body), with a decoder that tells whether it
 * holds bytes no answer used: the start of a head a store sent after an answer that ended on its
 * own, in the same read, which the decoder would keep and read the connection's next answer after.
 */
final class StoreCodec extends CombinedChannelDuplexHandler<StoreCodec.AnswerDecoder, StoreCodec.RequestEncoder> {

    StoreCodec() {
        AnswerDecoder answers = new AnswerDecoder();
        init(answers, new RequestEncoder(answers));
    }

    /** Bytes the store sent that no answer used: the connection cannot carry another request. */
    boolean holdsUnusedBytes() {
        return inboundHandler().holdsUnusedBytes();
    }

    static final class AnswerDecoder extends HttpResponseDecoder {

        /** The methods of the requests sent and not answered yet, oldest first. */
        private final ArrayDeque<HttpMethod> asked = new ArrayDeque<>(2);

        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            int status = ((HttpResponse) msg).status().code();
            if (status >= 100 && status < 200) {
                // An interim answer: the request's own is still to come.
                return super.isContentAlwaysEmpty(msg);
            }
            return HttpMethod.HEAD.equals(asked.poll()) || super.isContentAlwaysEmpty(msg);
        }

        boolean holdsUnusedBytes() {
            return actualReadableBytes() > 0;
        }
    }

    static final class RequestEncoder extends HttpRequestEncoder {

        private final AnswerDecoder answers;

        RequestEncoder(AnswerDecoder answers) {
            this.answers = answers;
        }

        @Override
        protected void encodeInitialLine(ByteBuf buf, HttpRequest request) throws Exception {
            answers.asked.add(request.method());
            super.encodeInitialLine(buf, request);
        }
    }
}
