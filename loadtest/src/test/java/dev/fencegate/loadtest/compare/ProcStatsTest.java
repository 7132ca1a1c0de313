package dev.fencegate.loadtest.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcStatsTest {

    @Test
    void reads_cpu_time_and_resident_memory_of_a_live_process() {
        ProcStats proc = ProcStats.load();
        long self = ProcessHandle.current().pid();

        assertThat(proc.cpuMillis(self)).isGreaterThan(0);
        assertThat(proc.rssKb(self)).isGreaterThan(10_000);
        assertThat(proc.cpuMillis(Long.MAX_VALUE)).isZero();
    }

    @Test
    void reads_the_cpu_time_of_a_jvms_jit_compiler_threads_by_thread() {
        ProcStats proc = ProcStats.load();
        long self = ProcessHandle.current().pid();

        Map<Long, Double> jit = proc.jitCpuMillis(self);

        assertThat(jit).isNotEmpty().doesNotContainKey(self);
        assertThat(jit.values().stream().mapToDouble(Double::doubleValue).sum()).isGreaterThan(0).isLessThan(proc.cpuMillis(self));
        assertThat(proc.jitCpuMillis(Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void cpu_between_samples_counts_new_processes_from_zero_and_ignores_gone_ones() {
        Map<Long, Double> before = Map.of(1L, 100.0, 2L, 50.0);
        Map<Long, Double> after = Map.of(1L, 130.0, 3L, 20.0);

        assertThat(ProcStats.cpuBetween(before, after)).isEqualTo(50.0);
    }
}
