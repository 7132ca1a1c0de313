package dev.fencegate.proxy;

import dev.fencegate.http.Outcome;
import dev.fencegate.http.Problem;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * In front of the data port's TLS handler: a client that speaks plain HTTP to it gets a plain
 * 400 saying so, as nginx answers, rather than a connection closed without a word. Anything that
 * may be TLS goes on to the TLS handler untouched, and this handler leaves the pipeline; nothing
 * of a plain request is read further or forwarded.
 */
final class PlainTextOnTlsPort extends ByteToMessageDecoder {

    /** Enough for a TLS record header, which tells TLS from text. */
    private static final int RECORD_HEADER = 5;

    /** The 400 was sent: whatever else comes before the close is dropped. */
    private boolean answered;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (answered) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        if (SslHandler.isEncrypted(in, false) || !startsLikeHttp(in)) {
            ctx.pipeline().remove(this);
            return;
        }
        in.skipBytes(in.readableBytes());
        answered = true;
        byte[] body = Problem.of(Outcome.BAD_REQUEST, "this port speaks TLS only: send the request over https").toJson();
        String head = "HTTP/1.1 400 Bad Request\r\nContent-Type: " + Problem.MEDIA_TYPE + "\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n";
        ByteBuf answer = Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body);
        // Written from here, toward the socket: the TLS handler, after this one, never sees it.
        ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
    }

    /** An upper-case method token and a space: what an HTTP/1 request line starts with. */
    private static boolean startsLikeHttp(ByteBuf in) {
        int start = in.readerIndex();
        for (int i = 0; i < Math.min(in.readableBytes(), 16); i++) {
            byte b = in.getByte(start + i);
            if (b == ' ') {
                return i > 0;
            }
            if (b < 'A' || b > 'Z') {
                return false;
            }
        }
        return false;
    }
}
