package dev.fencegate.observability;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;

/**
 * The process underneath the gateway: JVM memory, GC, threads, CPU, and Netty's buffer memory,
 * which the JVM's own direct-buffer figures do not see when Netty allocates without a cleaner.
 */
public final class RuntimeMetrics implements AutoCloseable {

    private final JvmGcMetrics gc;

    private RuntimeMetrics(JvmGcMetrics gc) {
        this.gc = gc;
    }

    public static RuntimeMetrics bindTo(MeterRegistry registry) {
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider allocator) {
            new NettyAllocatorMetrics(allocator).bindTo(registry);
        }
        Gauge.builder("fencegate.netty.direct.memory.used", PlatformDependent::usedDirectMemory)
                .description("Direct memory Netty holds outside the JVM's buffer pools; -1 when Netty does not count it")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("fencegate.netty.direct.memory.max", PlatformDependent::maxDirectMemory)
                .description("The most direct memory Netty will allocate")
                .baseUnit("bytes")
                .register(registry);
        return new RuntimeMetrics(gc);
    }

    /** Stops listening for GC notifications. */
    @Override
    public void close() {
        gc.close();
    }
}
