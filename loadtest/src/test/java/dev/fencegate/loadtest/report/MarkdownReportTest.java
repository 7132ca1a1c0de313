package dev.fencegate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.fencegate.loadtest.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownReportTest {

    @Test
    void tables_have_a_header_a_separator_and_one_row_per_result_with_its_numbers() {
        String md = MarkdownReport.render(ReportFixture.report());
        List<String> lines = md.lines().toList();

        assertThat(lines).contains(
                "| target | req/s (median) | min to max | p50 ms | p99 ms | errors |",
                "|---|---:|---:|---:|---:|---:|",
                "| discard direct | 93,412 | 91,000 to 95,000 | 0.311 | 4.20 | 0 |",
                "| discard via gateway | 20,123 | 19,500 to 20,400 | 1.50 | 12.5 | 3 |",
                "| discard via gateway | 15,000 | 15,000 | 2.20 | 4.40 | 48.9 | 97.8 | 147 | 0 |",
                "| discard via gateway | 41.5 | 38.25 (35.5) | 0.125 | 1.04 (1) | 187.5 |");
        assertThat(md).contains("net of the background measured over 6.5 s while no gateway ran: 2 transactions/s, 15.25 ms");
        assertThat(md).contains("![p50 and p99 latency against offered rate](latency.svg)");
        assertThat(md).contains("- machine: 2 cores");
    }

    @Test
    void the_headline_gives_the_ratio_to_nginx_the_costs_and_p99_at_the_rate_nearest_half_the_slowest_saturation() {
        String md = MarkdownReport.render(ReportFixture.withNginx());

        // Slowest saturation of the store is the gateway's 20,123 req/s: half is nearest the 10,000 req/s runs.
        assertThat(md.lines()).contains("| discard | 20,123 | 0.5 | 41.5 | 35.5 | 0.125 | 1 | 10,000 | 5.67 | 0.950 |");
        assertThat(MarkdownReport.render(ReportFixture.report()).lines())
                .contains("| discard | 20,123 | n/a | 41.5 | 35.5 | 0.125 | 1 | 10,000 | 5.67 | n/a |");
    }

    @Test
    void every_table_row_has_as_many_cells_as_its_header() {
        String md = MarkdownReport.render(ReportFixture.withNginx());
        String[] blocks = md.split("\n\n");

        for (String block : blocks) {
            List<String> rows = block.lines().filter(line -> line.startsWith("|")).toList();
            if (!rows.isEmpty()) {
                long columns = cells(rows.get(0));
                assertThat(rows).allSatisfy(row -> assertThat(cells(row)).as(row).isEqualTo(columns));
            }
        }
    }

    @Test
    void the_report_folder_holds_json_markdown_and_svg(@TempDir Path dir) throws Exception {
        ReportFiles.write(ReportFixture.report(), dir);

        JsonNode json = Json.MAPPER.readTree(dir.resolve("report.json").toFile());
        assertThat(json.at("/targets/1/saturation/medianThroughput").asDouble()).isEqualTo(20_123);
        assertThat(json.at("/targets/1/costPerWrite/postgresCpuMicros").asDouble()).isEqualTo(38.25);
        assertThat(Files.readString(dir.resolve("report.md"))).startsWith("# Fencegate comparison");
        assertThat(Files.readString(dir.resolve("latency.svg"))).startsWith("<svg");
    }

    private static long cells(String row) {
        return row.replace("\\|", "").chars().filter(c -> c == '|').count() - 1;
    }
}
