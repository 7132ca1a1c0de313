package dev.fencegate.proxy;

import io.netty.buffer.ByteBuf;

/**
 * Follows an aws-chunked body on its way to the store, to find the bytes to hold back behind a
 * full socket: those on which a store may take the object as whole, before the request ends. A
 * store that does not decode the body (S3Proxy reads it plain unless the first
 * {@code x-amz-content-sha256} is one of the values it knows, spelt exactly) still takes the
 * declared length of it: the object is whole on the body's byte of that number. For a store that
 * decodes it, and a body in the canonical form ({@code 1*7HEXDIG [";" extension] CRLF data
 * CRLF}, ..., a zero-size chunk) that is the last byte of the data the request declares
 * ({@code x-amz-decoded-content-length}; S3Proxy applies the object there), or the end of the
 * zero-size chunk's line, whichever comes first. Stores read other forms too, each its own way
 * (S3Proxy takes a signed size, drops what follows a chunk's data up to the CRLF, and ends lines
 * only at CRLF), so where a body leaves the canonical form nothing is known of where a store takes
 * its data as whole: from that byte on, all of it is held back.
 */
final class AwsChunkedData {

    private enum State { SIZE, EXTENSION, SIZE_LF, DATA, DATA_CR, DATA_LF, WHOLE, LOST }

    /** More hex digits than this make a size no store takes as a chunk's (S3Proxy's is an int). */
    private static final int MOST_DIGITS = 7;

    /** Declared data length, or -1 when the request does not say. */
    private final long declared;
    /** Bytes of the body read so far. */
    private long raw;
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
     * indexes: the offset from its reader index of the first byte in them to hold back, else -1.
     * Those after it in the same buffer are held back with it. Once the body left the canonical
     * form, 0 for every later buffer with bytes.
     */
    int wholeAt(ByteBuf body) {
        if (!body.isReadable()) {
            return -1;
        }
        int plain = -1;
        if (declared > 0 && raw <= declared - 1 && declared - 1 < raw + body.readableBytes()) {
            plain = (int) (declared - 1 - raw);
        }
        raw += body.readableBytes();
        int decoded = decodedWholeAt(body);
        return plain < 0 ? decoded : decoded < 0 ? plain : Math.min(plain, decoded);
    }

    /** As {@link #wholeAt}, for a store that decodes the body. */
    private int decodedWholeAt(ByteBuf body) {
        if (state == State.WHOLE) {
            return -1;
        }
        if (state == State.LOST) {
            return 0;
        }
        if (declared == 0 && data == 0 && state == State.SIZE && digits == 0) {
            // Nothing declared: a store may take the object as whole on the body's first byte.
            state = State.WHOLE;
            return 0;
        }
        int start = body.readerIndex();
        int end = body.writerIndex();
        for (int i = start; i < end; i++) {
            byte b = body.getByte(i);
            switch (state) {
                case SIZE -> {
                    int digit = Character.digit(b, 16);
                    if (digit >= 0 && digits < MOST_DIGITS) {
                        size = size * 16 + digit;
                        digits++;
                    } else if (b == ';' && digits > 0) {
                        state = State.EXTENSION;
                    } else if (b == '\r' && digits > 0) {
                        state = State.SIZE_LF;
                    } else {
                        return lost(i - start);
                    }
                }
                case EXTENSION -> {
                    if (b == '\r') {
                        state = State.SIZE_LF;
                    } else if (b == '\n') {
                        return lost(i - start);
                    }
                }
                case SIZE_LF -> {
                    if (b != '\n') {
                        return lost(i - start);
                    }
                    if (size == 0) {
                        // The zero-size chunk's line: the data is whole here whatever was declared.
                        state = State.WHOLE;
                        return i - start;
                    }
                    chunkLeft = size;
                    state = State.DATA;
                }
                case DATA -> {
                    int take = (int) Math.min(chunkLeft, end - i);
                    if (declared > 0 && data + take >= declared) {
                        state = State.WHOLE;
                        return (int) (i + (declared - data) - 1 - start);
                    }
                    data += take;
                    chunkLeft -= take;
                    i += take - 1;
                    if (chunkLeft == 0) {
                        state = State.DATA_CR;
                    }
                }
                case DATA_CR -> {
                    if (b != '\r') {
                        return lost(i - start);
                    }
                    state = State.DATA_LF;
                }
                case DATA_LF -> {
                    if (b != '\n') {
                        return lost(i - start);
                    }
                    state = State.SIZE;
                    size = 0;
                    digits = 0;
                }
                default -> {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** The body left the canonical form at {@code offset}: held back from there on. */
    private int lost(int offset) {
        state = State.LOST;
        return offset;
    }
}
