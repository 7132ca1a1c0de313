package dev.fencegate.loadtest.report;

/**
 * PostgreSQL activity while no gateway ran: other clients of a shared server, autovacuum, the
 * idle gateways' own checks. Subtracted from the gateway's costs to give the "net" figures;
 * {@code commitsPerSecond} is null when the database was not readable.
 */
public record Background(double seconds, Double commitsPerSecond, double postgresCpuMillisPerSecond) {
}
