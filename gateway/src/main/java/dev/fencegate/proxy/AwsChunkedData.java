package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;

/**
 * Follows an aws-chunked body ({@code hex-size[;extension]CRLF data CRLF ... 0CRLF trailers CRLF})
 * on its way to the store, to find the first byte on which a store decoding it can take the object
 * as whole, before the request ends: the last byte of the data the request declares
 * ({@code x-amz-decoded-content-length}; S3Proxy applies the object there), or the end of the
 * line of the zero-size chunk, whichever comes first. Lenient where a store may be (a bare LF ends
 * a line): it errs towards finding the byte early. A body it cannot follow has no such byte; its
 * request's last byte stands in for it.
 */
final class AwsChunkedData {

    private enum State { SIZE, EXTENSION, DATA, DATA_END, DONE }

    /** Declared data length, or -1 when the request does not say. */
    private final long declared;
    private long data;
    private State state = State.SIZE;
    private long size;
    private int digits;
    private long chunkLeft;

    AwsChunkedData(long declared) {
        this.declared = declared;
    }

    /** From {@code x-amz-decoded-content-length}: -1 when absent or not a length. */
    static AwsChunkedData declaring(String decodedLength) {
        long declared = -1;
        if (decodedLength != null) {
            try {
                declared = Long.parseLong(decodedLength.strip());
            } catch (NumberFormatException e) {
                declared = -1;
            }
        }
        return new AwsChunkedData(declared < 0 ? -1 : declared);
    }

    /**
     * Reads {@code body}'s readable bytes, which follow those read before, without moving its
     * indexes: the offset from its reader index of the byte the data is whole on, if it is among
     * them; -1 otherwise, and for every buffer after the one that held it.
     */
    int wholeAt(ByteBuf body) {
        if (state == State.DONE) {
            return -1;
        }
        if (declared == 0 && data == 0 && state == State.SIZE && digits == 0 && body.isReadable()) {
            // Nothing declared: a store may take the object as whole on the body's first byte.
            state = State.DONE;
            return 0;
        }
        int start = body.readerIndex();
        int end = body.writerIndex();
        for (int i = start; i < end; i++) {
            byte b = body.getByte(i);
            switch (state) {
                case SIZE -> {
                    int digit = Character.digit(b, 16);
                    if (digit >= 0 && digits < 15) {
                        size = size * 16 + digit;
                        digits++;
                    } else if (b == ';' && digits > 0) {
                        state = State.EXTENSION;
                    } else if (b == '\r' && digits > 0) {
                        state = State.EXTENSION;
                    } else if (b == '\n' && digits > 0) {
                        if (sizeLineEnded()) {
                            return i - start;
                        }
                    } else {
                        state = State.DONE;
                        return -1;
                    }
                }
                case EXTENSION -> {
                    if (b == '\n' && sizeLineEnded()) {
                        return i - start;
                    }
                }
                case DATA -> {
                    int take = (int) Math.min(chunkLeft, end - i);
                    if (declared > 0 && data + take >= declared) {
                        state = State.DONE;
                        return (int) (i + (declared - data) - 1 - start);
                    }
                    data += take;
                    chunkLeft -= take;
                    i += take - 1;
                    if (chunkLeft == 0) {
                        state = State.DATA_END;
                    }
                }
                case DATA_END -> {
                    if (b == '\n') {
                        state = State.SIZE;
                        size = 0;
                        digits = 0;
                    } else if (b != '\r') {
                        state = State.DONE;
                        return -1;
                    }
                }
                default -> {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** A size line ended: true when it was the zero-size chunk's, the data's end. */
    private boolean sizeLineEnded() {
        if (size == 0) {
            state = State.DONE;
            return true;
        }
        chunkLeft = size;
        state = State.DATA;
        return false;
    }
}
