package dev.fencegate.nemesis;

import dev.fencegate.testing.FenceSchema;
import dev.fencegate.testing.GatewayProcess;
import dev.fencegate.testing.TcpRelay;
import java.util.List;
import java.util.Random;

/**
 * The nemesis: faults in turn, with a random quiet spell before each: a gateway stopped
 * (SIGSTOP) for five to seven seconds, longer than a registration lives with a one-second
 * upstream timeout; every PostgreSQL backend of the gateways terminated; the gateway behind
 * the relay cut from PostgreSQL for three to six seconds. Stops by itself at the end of the run.
 */
final class Faults implements Runnable {

    private final List<GatewayProcess> gateways;
    private final TcpRelay relay;
    private final FenceSchema fences;
    private final Random random;
    private final long endNanos;
    private volatile int pauses;
    private volatile int backendKills;
    private volatile int backendsTerminated;
    private volatile int cuts;

    Faults(List<GatewayProcess> gateways, TcpRelay relay, FenceSchema fences, long seed, long endNanos) {
        this.gateways = gateways;
        this.relay = relay;
        this.fences = fences;
        this.random = new Random(seed);
        this.endNanos = endNanos;
    }

    @Override
    public void run() {
        try {
            for (int step = 0; step < 10_000 && System.nanoTime() < endNanos; step++) {
                Thread.sleep(1_000 + random.nextInt(2_000));
                if (System.nanoTime() >= endNanos) {
                    return;
                }
                switch (step % 3) {
                    case 0 -> pause(gateways.get(random.nextInt(gateways.size())));
                    case 1 -> {
                        backendKills++;
                        backendsTerminated += fences.terminateGatewayBackends();
                    }
                    default -> cut();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pause(GatewayProcess gateway) throws InterruptedException {
        pauses++;
        gateway.pause();
        try {
            Thread.sleep(5_000 + random.nextInt(2_000));
        } finally {
            gateway.resume();
        }
    }

    private void cut() throws InterruptedException {
        cuts++;
        relay.cut();
        try {
            Thread.sleep(3_000 + random.nextInt(3_000));
        } finally {
            relay.restore();
        }
    }

    int pauses() {
        return pauses;
    }

    int backendKills() {
        return backendKills;
    }

    int cuts() {
        return cuts;
    }

    @Override
    public String toString() {
        return pauses + " pauses, " + backendKills + " backend kills (" + backendsTerminated + " backends), " + cuts + " cuts";
    }
}
