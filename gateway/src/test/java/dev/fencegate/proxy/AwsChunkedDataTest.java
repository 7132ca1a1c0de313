package dev.fencegate.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.testing.SeededCases;
import dev.fencegate.testing.SeededCases.Gen;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Where to hold an aws-chunked body back, however the body is cut into reads. */
class AwsChunkedDataTest {

    /**
     * A body, what it declares, and the offset of the first byte to hold back for a store that
     * decodes it (-1: none). A store reading it plain takes the object as whole on the byte the
     * declared length numbers: that one too.
     */
    record Body(String text, String declared, int decodedAt) {

        int plainAt() {
            try {
                long declared = Long.parseLong(declared().strip());
                return declared > 0 && declared <= text.length() ? (int) declared - 1 : -1;
            } catch (NullPointerException | NumberFormatException e) {
                return -1;
            }
        }

        /** The first byte held back. */
        int wholeAt() {
            return plainAt() < 0 ? decodedAt : decodedAt < 0 ? plainAt() : Math.min(plainAt(), decodedAt);
        }
    }

    static final List<Body> BODIES = List.of(
            // S3Proxy applies the object on the last declared data byte: the final chunk and trailer may never come.
            new Body("a\r\nSTALE00060\r\n0\r\nx-amz-checksum-crc32:fboHiA==\r\n\r\n", "10", 12),
            new Body("5;chunk-signature=ab12\r\nhello\r\n5;chunk-signature=cd34\r\nworld\r\n0;chunk-signature=ef\r\n\r\n", "10",
                    "5;chunk-signature=ab12\r\nhello\r\n5;chunk-signature=cd34\r\nworl".length()),
            new Body("0005\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", "10", "0005\r\nhello\r\n5\r\nworl".length()),
            new Body("A\r\n0123456789\r\n0\r\n\r\n", "10", 12),
            // Nothing declared: the zero-size chunk's line ends the data.
            new Body("5\r\nhello\r\n0\r\n\r\n", null, "5\r\nhello\r\n0\r".length()),
            new Body("5\r\nhello\r\n0\r\n\r\n", "not a length", "5\r\nhello\r\n0\r".length()),
            // Fewer bytes than declared: the zero-size chunk ends them first.
            new Body("5\r\nhello\r\n0\r\n\r\n", "99", "5\r\nhello\r\n0\r".length()),
            // An empty object: whole on its first byte.
            new Body("0\r\n\r\n", "0", 0),
            // Left the canonical form: held back from the first byte outside it, whatever a store makes of the rest.
            new Body("3\nabc\n0\n\n", "3", 1),
            new Body("hello world", "11", 0),
            new Body("\r\n5\r\nhello\r\n0\r\n\r\n", "5", 0),
            // S3Proxy takes a signed size, ...
            new Body("+5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", "10", 0),
            // ... any number of digits, ...
            new Body("0000000000000005\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", "10", 7),
            // ... drops what follows a chunk's data up to the CRLF, ...
            new Body("5\r\nhellox\r\n5\r\nworld\r\n0\r\n\r\n", "10", 8),
            new Body("5\r\nhello\n3\r\n7\r\n\r\n2\r\nZZ\r\n4\r\nwxyz\r\n4\r\nMORE\r\n0\r\n\r\n", "16", 8),
            // ... and ends a line only at CRLF.
            new Body("5;a\nb\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", "10", 3),
            new Body("5 \r\nhello\r\n0\r\n\r\n", "5", 1),
            new Body("5\r\r\nhello\r\n0\r\n\r\n", "5", 2));

    static Stream<Arguments> bodies() {
        return BODIES.stream().map(body -> Arguments.of(Named.of(body.text().replace("\r", "\\r").replace("\n", "\\n"), body)));
    }

    @ParameterizedTest
    @MethodSource("bodies")
    void heldBackFromTheLastDeclaredByteTheZeroSizeChunksLineOrWhereTheBodyLeavesTheCanonicalForm(Body body) {
        assertThat(AwsChunkedData.declaring(body.declared()).wholeAt(Unpooled.wrappedBuffer(body.text().getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo(body.wholeAt());
    }

    /** One body cut into reads at random places. */
    record Cut(Body body, List<Integer> reads) {
        static Cut generate(Gen gen) {
            Body body = gen.pick(BODIES);
            List<Integer> reads = new ArrayList<>();
            for (int left = body.text().length(); left > 0; ) {
                int read = gen.intBetween(1, Math.min(left, 8));
                reads.add(read);
                left -= read;
            }
            return new Cut(body, reads);
        }
    }

    static Stream<Named<Cut>> cuts() {
        return SeededCases.cases("aws-chunked-reads", 500, Cut::generate);
    }

    @ParameterizedTest
    @MethodSource("cuts")
    void everyByteAStoreMayApplyOnIsHeldBackHoweverTheBodyIsCutIntoReads(Cut cut) {
        Body body = cut.body();
        AwsChunkedData data = AwsChunkedData.declaring(body.declared());
        byte[] bytes = body.text().getBytes(StandardCharsets.US_ASCII);
        List<Integer> heldFrom = new ArrayList<>();
        int offset = 0;
        for (int read : cut.reads()) {
            ByteBuf buffer = Unpooled.wrappedBuffer(bytes, offset, read);
            int at = data.wholeAt(buffer);
            assertThat(buffer.readerIndex()).as("indexes untouched").isZero();
            for (int candidate : new int[] {body.plainAt(), body.decodedAt()}) {
                if (candidate >= offset && candidate < offset + read) {
                    assertThat(at).as("the read holding byte %d holds it back", candidate).isBetween(0, candidate - offset);
                }
            }
            if (at >= 0) {
                heldFrom.add(offset + at);
            }
            offset += read;
        }
        assertThat(heldFrom.isEmpty() ? -1 : heldFrom.get(0)).as("the first byte held back").isEqualTo(body.wholeAt());
    }
}
