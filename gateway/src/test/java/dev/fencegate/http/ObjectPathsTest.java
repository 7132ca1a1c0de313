package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The name S3Proxy's file store writes a PUT under way to, {@code <key>-<UUID>}, told apart from keys that only look like it. */
class ObjectPathsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "k-0f8fad5b-d9cb-469f-a165-70867728950e, true",
            "report.csv-0F8FAD5B-D9CB-469F-A165-70867728950E, true",
            "a--0f8fad5b-d9cb-469f-a165-70867728950e, true",
            "-0f8fad5b-d9cb-469f-a165-70867728950e, false",
            "0f8fad5b-d9cb-469f-a165-70867728950e, false",
            "k.0f8fad5b-d9cb-469f-a165-70867728950e, false",
            "k-0f8fad5b-d9cb-469f-a165-70867728950g, false",
            "k-0f8fad5bd9cb-469f-a165-70867728950e0, false",
            "k-0f8fad5b-d9cb-469f-a165-70867728950, false",
            "k-0f8fad5b-d9cb-469f-a165-70867728950e-, false",
            "k-\u0660f8fad5b-d9cb-469f-a165-70867728950e, false"})
    void aTemporaryNameIsANameADashAndAUuidInItsCanonicalForm(String segment, boolean temporary) {
        assertThat(ObjectPaths.isTemporaryName(segment)).isEqualTo(temporary);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "report.0000000008, true",
            "r.csv.4294967295, true",
            "a..0000000000, true",
            ".0000000008, false",
            "0000000008, false",
            "report.000000008, false",
            "report.00000000081, false",
            "report-0000000008, false",
            "report.000000000x, false",
            "report.\u0660000000008, false"})
    void nginxsCopyNameIsANameADotAndTenAsciiDigits(String segment, boolean copy) {
        assertThat(ObjectPaths.isCopyName(segment)).isEqualTo(copy);
    }
}
