package dev.fencegate.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SvgLatencyChartTest {

    @Test
    void the_chart_is_well_formed_svg_with_a_p50_and_a_p99_line_per_target() throws Exception {
        String svg = SvgLatencyChart.render("latency & rate", ReportFixture.report().targets());

        Document doc = parse(svg);
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(doc.getDocumentElement().getAttribute("xmlns")).isEqualTo("http://www.w3.org/2000/svg");
        NodeList lines = doc.getElementsByTagName("polyline");
        assertThat(lines.getLength()).isEqualTo(4);
        assertThat(((Element) lines.item(1)).getAttribute("stroke-dasharray")).isNotEmpty();
        assertThat(((Element) lines.item(0)).getAttribute("points").split(" ")).hasSize(3);
    }

    @Test
    void the_chart_carries_the_numbers_and_the_names() {
        String svg = SvgLatencyChart.render("t", ReportFixture.report().targets());

        assertThat(svg).contains("discard via gateway p99 at 15,000 req/s: 48.9 ms")
                .contains("discard direct p50 at 5,000 req/s: 0.123 ms")
                .contains(">15,000<", "1 ms", "100 ms", "solid: p50, dashed: p99");
    }

    @Test
    void higher_latency_is_drawn_higher_up() throws Exception {
        Document doc = parse(SvgLatencyChart.render("t", ReportFixture.report().targets()));
        String[] gatewayP99 = ((Element) doc.getElementsByTagName("polyline").item(3)).getAttribute("points").split(" ");

        double yAt5k = Double.parseDouble(gatewayP99[0].split(",")[1]);
        double yAt15k = Double.parseDouble(gatewayP99[2].split(",")[1]);
        assertThat(yAt15k).isLessThan(yAt5k);
    }

    @Test
    void each_store_gets_its_own_panel_and_rate_axis() throws Exception {
        TargetSummary slowStore = new TargetSummary("webdav direct", "webdav", "direct", null,
                List.of(new TargetSummary.RatePoint(150, 150, new dev.fencegate.loadtest.LatencySummary(
                        2, 3, 9, 12, 15, 2.5), 0)), null);
        List<TargetSummary> targets = new java.util.ArrayList<>(ReportFixture.report().targets());
        targets.add(slowStore);

        String svg = SvgLatencyChart.render("t", targets);

        parse(svg);
        assertThat(svg).contains(">store: discard<", ">store: webdav<", ">200<", ">20,000<");
        assertThat(svg.split("<polyline", -1)).hasSize(7);
    }

    @Test
    void without_fixed_rate_runs_the_chart_says_so() throws Exception {
        TargetSummary bare = new TargetSummary("x", "s", "direct", null, List.of(), null);

        String svg = SvgLatencyChart.render("t", List.of(bare));

        parse(svg);
        assertThat(svg).contains("no fixed-rate runs");
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }
}
