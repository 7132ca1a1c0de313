package dev.fencegate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencegate.fence.ResourceKey;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FenceNamingTest {

    private static final String JOBS = "/{bucket}/jobs/{job}/**";
    private static final String TMP = "/{bucket}/tmp/**";

    @Test
    void theNamingRecordedReadsBackAsTheSameNaming() {
        FenceNaming naming = FenceNaming.of("s3-virtual-host", List.of("S3.example", "localhost"), "/base", JOBS + ", " + TMP);

        assertThat(naming.text()).isEqualTo("{\"store-kind\":\"s3-virtual-host\",\"virtual-host-domains\":[\"localhost\","
                + "\"s3.example\"],\"upstream-path\":\"/base\",\"scopes\":[\"/{_}/jobs/{_}/**\",\"/{_}/tmp/**\"]}");
        assertThat(FenceNaming.parse(naming.text())).contains(naming);
        assertThat(FenceNaming.parse("not json")).isEmpty();
        assertThat(FenceNaming.parse("{\"store-kind\":\"s3-path\"}")).isEmpty();
    }

    @Test
    void aPlaceholdersNameIsNotPartOfTheNaming() {
        assertThat(FenceNaming.of("s3-path", List.of(), "", "/{b}/jobs/{j}/**").text())
                .isEqualTo(FenceNaming.of("s3-path", List.of(), "", JOBS).text());
        assertThat(FenceNaming.of("s3-path", List.of(), "", "/{b}/jobs/{j}/**").whyNotCarriedFrom(
                FenceNaming.of("s3-path", List.of(), "", JOBS).text())).isEmpty();
        assertThat(FenceNaming.of("s3-path", List.of(), "", "/{b}/jobs/{j}/**").carrier().apply(new ResourceKey("/d/jobs/4/x")))
                .contains(new ResourceKey("/d/jobs/4"));
    }

    @Test
    void domainsNameResourcesOnlyUnderVirtualHosting() {
        // Under s3-path the domains only decide which Hosts are refused, never a key.
        assertThat(FenceNaming.of("s3-path", List.of("a.example"), "", "").text())
                .isEqualTo(FenceNaming.of("s3-path", List.of("b.example"), "", "").text());
        assertThat(FenceNaming.of("s3-virtual-host", List.of("a.example"), "", "").text())
                .isNotEqualTo(FenceNaming.of("s3-virtual-host", List.of("b.example"), "", "").text());
    }

    @Test
    void onlyTemplatesAddedAfterTheRecordedOnesCanBeCarried() {
        String perObject = FenceNaming.of("s3-path", List.of(), "", "").text();
        String jobs = FenceNaming.of("s3-path", List.of(), "", JOBS).text();

        assertThat(FenceNaming.of("s3-path", List.of(), "", JOBS).whyNotCarriedFrom(perObject)).isEmpty();
        assertThat(FenceNaming.of("s3-path", List.of(), "", JOBS + "," + TMP).whyNotCarriedFrom(jobs)).isEmpty();
        assertThat(FenceNaming.of("webdav", List.of(), "", JOBS).whyNotCarriedFrom(jobs)).isEmpty();

        assertThat(FenceNaming.of("s3-path", List.of(), "", "").whyNotCarriedFrom(jobs))
                .hasValueSatisfying(why -> assertThat(why).contains("no longer be covered by their job's fence"));
        assertThat(FenceNaming.of("s3-path", List.of(), "", TMP + "," + JOBS).whyNotCarriedFrom(jobs)).isPresent();
        // A template dropped for a shallower one that covers every path it matched: its keys move up to that one's.
        assertThat(FenceNaming.of("s3-path", List.of(), "", "/{bucket}/jobs/**").whyNotCarriedFrom(jobs)).isEmpty();
        assertThat(FenceNaming.of("s3-path", List.of(), "", "/{bucket}/runs/**").whyNotCarriedFrom(jobs)).isPresent();
        assertThat(FenceNaming.of("s3-path", List.of(), "", "/data/jobs/{job}/**").whyNotCarriedFrom(jobs)).isPresent();
        assertThat(FenceNaming.of("s3-path", List.of(), "/base", JOBS).whyNotCarriedFrom(jobs))
                .hasValueSatisfying(why -> assertThat(why).contains("every fence would name another object"));
        assertThat(FenceNaming.of("s3-path", List.of(), "", JOBS).whyNotCarriedFrom("{\"store-kind\":1}"))
                .hasValueSatisfying(why -> assertThat(why).contains("cannot be read"));
    }

    @Test
    void eachObjectsFenceMovesUpToTheScopeItNowFallsUnder() {
        var carrier = FenceNaming.of("s3-path", List.of(), "", JOBS).carrier();

        assertThat(carrier.apply(new ResourceKey("/data/jobs/42/part-0"))).contains(new ResourceKey("/data/jobs/42"));
        assertThat(carrier.apply(new ResourceKey("/data/jobs/42/a/b"))).contains(new ResourceKey("/data/jobs/42"));
        assertThat(carrier.apply(new ResourceKey("/data/jobs/42"))).isEmpty();
        assertThat(carrier.apply(new ResourceKey("/data/tmp/file"))).isEmpty();
        assertThat(carrier.apply(new ResourceKey("legacy"))).isEqualTo(Optional.empty());
    }
}
