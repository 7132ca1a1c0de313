package dev.fencegate.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** The JVM and Netty basics an operator needs to tell a leak from load. */
class RuntimeMetricsTest {

    @Test
    void jvmMemoryGcThreadsCpuAndNettyBufferMemoryAreExposed() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

        try (RuntimeMetrics ignored = RuntimeMetrics.bindTo(registry)) {
            assertThat(registry.scrape())
                    .contains("jvm_memory_used_bytes{area=\"heap\"")
                    .contains("jvm_buffer_memory_used_bytes{id=\"direct\"}")
                    .contains("jvm_threads_live_threads")
                    .contains("process_cpu_usage")
                    .contains("netty_allocator_memory_used{")
                    .contains("fencegate_netty_direct_memory_used_bytes")
                    .contains("fencegate_netty_direct_memory_max_bytes");
        }
    }
}
